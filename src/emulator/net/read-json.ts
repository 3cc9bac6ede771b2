// Parses a JSON object body against a zod schema; bad input becomes a 400 that names every problem at once.
import type {Context} from 'hono';
import type {z} from 'zod';
import {invalidRequest} from '../http-error.js';
import {bodyText} from './body-text.js';

export interface ReadJsonOptions {
  /** An empty body reads as `{}`. */
  emptyAllowed?: boolean;
  /** Problems are prefixed with the path of the field they are in (`url: …`). */
  fieldPaths?: boolean;
}

export async function readJsonBody<T>(
  c: Context,
  schema: z.ZodType<T>,
  {emptyAllowed = false, fieldPaths = true}: ReadJsonOptions = {},
): Promise<T> {
  const body = await readObject(c, emptyAllowed);
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      if (issue.code === 'unrecognized_keys')
        return `unknown field ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}`;
      const path = issue.path.join('.');
      // A message that names its field already is not prefixed with it again.
      if (!fieldPaths || path === '' || issue.message.startsWith(`${path} `)) return issue.message;
      return `${path}: ${issue.message}`;
    });
    throw invalidRequest(problems.join('; ') || 'invalid request body');
  }
  return parsed.data;
}

/** A JSON object body whose fields the caller checks itself; a field not in `fields` is refused by name. */
export async function readJsonObject(
  c: Context,
  fields: readonly string[],
  {emptyAllowed = false}: {emptyAllowed?: boolean} = {},
): Promise<Record<string, unknown>> {
  const body = await readObject(c, emptyAllowed);
  const unknown = Object.keys(body).filter((k) => !fields.includes(k));
  if (unknown.length)
    throw invalidRequest(`unknown field ${unknown.map((k) => JSON.stringify(k)).join(', ')}`);
  return body;
}

async function readObject(c: Context, emptyAllowed: boolean): Promise<Record<string, unknown>> {
  const text = await bodyText(c);
  if (text.trim() === '' && emptyAllowed) return {};
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw invalidRequest('the request body must be a JSON object');
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw invalidRequest('the request body must be a JSON object');
  }
  return body as Record<string, unknown>;
}
