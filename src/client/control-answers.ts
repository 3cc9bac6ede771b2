// What the control client makes of the emulator's answers: a record checked against its schema (an
// EmulatorControlError of code invalid_response when it is not one), and the relay stream's NDJSON lines.
import type {z} from 'zod';
import {EmulatorControlError, errorEnvelopeOf} from './errors.js';
import type {ResponseLike} from './transport.js';

/** A body that reads as it comes (a fetch Response's stream in Node, undici's): the relay stream reads it so. */
export function isByteStream(body: object): body is AsyncIterable<Uint8Array> {
  return typeof (body as Partial<AsyncIterable<Uint8Array>>)[Symbol.asyncIterator] === 'function';
}

export function parseAnswer<T>(schema: z.ZodType<T>, value: unknown, path: string, status: number): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const where = issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
  throw new EmulatorControlError(
    `the emulator's answer to ${path} does not have the expected shape${where}: ${issue?.message ?? 'invalid'}`,
    status,
    'invalid_response',
  );
}

/** The non-empty lines of a newline-delimited body, as they arrive. */
export async function* ndjsonLines(body: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const chunk of body) {
    buffered += decoder.decode(chunk, {stream: true});
    let newline = buffered.indexOf('\n');
    while (newline >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      newline = buffered.indexOf('\n');
      if (line.trim()) yield line;
    }
  }
}

/** The error an answer that is not 2xx carries: the emulator's code, message and refused fields when it sent them. */
export async function controlErrorOf(
  res: ResponseLike,
  schemas: () => Promise<Pick<typeof import('./control-schemas.js'), 'ProblemSchema'>>,
): Promise<EmulatorControlError> {
  const text = await res.text().catch(() => '');
  let envelope: ReturnType<typeof errorEnvelopeOf>;
  try {
    envelope = errorEnvelopeOf(JSON.parse(text));
  } catch {
    // Not JSON: not our error shape; the status says what there is to say.
  }
  if (!envelope) return new EmulatorControlError(`the emulator answered ${res.status}`, res.status, 'error');
  const {ProblemSchema} = await schemas();
  const problems = (envelope.problems ?? []).flatMap((p) => {
    const problem = ProblemSchema.safeParse(p);
    return problem.success ? [problem.data] : [];
  });
  return new EmulatorControlError(envelope.message, res.status, envelope.code, problems);
}
