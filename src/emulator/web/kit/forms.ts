// Reading a form post and putting an operation's problems next to the form's fields.
import type {Context} from 'hono';
import {bodyText} from '../../net/body-text.js';
import {OperationError} from '../../operation-error.js';
import type {FormErrors} from '../views/layout.js';

/** The form's fields, or undefined when the body is not an ordinary form post. */
export async function readForm(c: Context): Promise<URLSearchParams | undefined> {
  const type = (c.req.header('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') return undefined;
  try {
    return new URLSearchParams(await bodyText(c));
  } catch {
    return undefined;
  }
}

/** A form value as text, cut short so an oversized field cannot make a large page. */
export function clip(value: string | null, max = 1000): string {
  return (value ?? '').slice(0, max);
}

export function statusOf(err: unknown): number {
  if (err instanceof OperationError) return err.status;
  throw err;
}

/** How the forms name their fields, so `url must …` from an operation reads `URL must …` on the page. */
const FIELD_NAMES: Record<string, string> = {
  url: 'URL',
  events: 'Events',
  description: 'Description',
  name: 'Name',
  expires: 'Expires',
};

/** An operation's problems, each next to its field; anything not tied to a field goes to the form as a whole. */
export function formErrors(err: unknown, fields: string[]): FormErrors {
  if (!(err instanceof OperationError)) throw err;
  const errors: FormErrors = {};
  for (const p of err.problems) {
    const field = fields.includes(p.field) ? p.field : 'form';
    const named = FIELD_NAMES[field];
    // Operations name the field apart from the message ("must use https://"); some messages start with it.
    const bare = p.message.toLowerCase().startsWith(`${field} `)
      ? p.message.slice(field.length + 1)
      : p.message;
    const message = named && /^(is|are|must|contains|has) /.test(bare) ? `${named} ${bare}` : bare;
    errors[field] ??= sentence(message);
  }
  if (Object.keys(errors).length === 0) errors.form = sentence(err.message);
  return errors;
}

export const sentence = (text: string) => {
  const t = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?]$/.test(t) ? t : `${t}.`;
};
