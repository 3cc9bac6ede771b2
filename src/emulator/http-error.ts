// Errors that render themselves in the service's error shape, and the one last-resort handler for everything else.
import type {Context} from 'hono';
import {methodNotAllowed} from 'hono/method-not-allowed';
import type {ContentfulStatusCode} from 'hono/utils/http-status';
import type {ErrorCode} from '../definitions.js';
import type {EmulatorApp} from './app-env.js';
import {nodeOf} from './node-binding.js';
import {OperationError, type Problem} from './operation-error.js';
import {VaultKeyMismatchError} from './vault.js';

export class HttpError extends Error {
  readonly status: ContentfulStatusCode;
  readonly code: ErrorCode;
  readonly headers: Record<string, string>;
  readonly problems: readonly Problem[];

  constructor(
    status: ContentfulStatusCode,
    code: ErrorCode,
    message: string,
    headers: Record<string, string> = {},
    problems: readonly Problem[] = [],
  ) {
    super(message);
    this.name = 'HttpError';
    this.status = status;
    this.code = code;
    this.headers = headers;
    this.problems = problems;
  }

  toResponse(): Response {
    const error = this.problems.length
      ? {code: this.code, message: this.message, problems: this.problems}
      : {code: this.code, message: this.message};
    return Response.json({error}, {status: this.status, headers: this.headers});
  }
}

export const unauthorized = () =>
  // One message whatever the reason, so a caller learns nothing about which keys exist.
  new HttpError(401, 'unauthorized', 'missing or invalid API key; pass `Authorization: Bearer svc_…`');
export const forbidden = (message: string) => new HttpError(403, 'forbidden', message);
export const notFound = (message = 'no such resource') => new HttpError(404, 'not_found', message);
export const invalidRequest = (message: string) => new HttpError(400, 'invalid_request', message);
export const conflict = (message: string) => new HttpError(409, 'conflict', message);

/** The one mapping of an operation's error to its HTTP answer. */
export function fromOperationError(err: OperationError): HttpError {
  return new HttpError(err.status as ContentfulStatusCode, err.code, err.message, {}, err.problems);
}

/** Hono's onError: known errors render themselves; anything else is logged and answered without internals. */
export function errorHandler(log: (line: string) => void) {
  return (err: Error, c: Context): Response => {
    if (err instanceof HttpError) return err.toResponse();
    if (err instanceof OperationError) return fromOperationError(err).toResponse();
    // Start refuses a vault key unlike the database's; should a secret still not open, say so, not 500.
    if (err instanceof VaultKeyMismatchError) {
      return new HttpError(
        503,
        'vault_unavailable',
        `${err.message}; start every emulator process with the same SVC_EMULATOR_VAULT_KEY`,
      ).toResponse();
    }
    // Hono's own HTTPException (e.g. from a middleware) carries a status we can keep.
    const status = (err as {status?: unknown}).status;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      return new HttpError(
        status as ContentfulStatusCode,
        'invalid_request',
        'the request could not be processed',
      ).toResponse();
    }
    if (clientWentAway(err, c)) {
      // Nobody is left to read an answer, and nothing went wrong here: one line, no stack.
      log(`the client closed the connection before its request was read: ${c.req.method} ${c.req.path}`);
      return new HttpError(400, 'invalid_request', 'the request was not received in full').toResponse();
    }
    log(`internal error on ${c.req.method} ${c.req.path}: ${err.stack ?? err.message}`);
    return new HttpError(500, 'internal', 'internal error').toResponse();
  };
}

function clientWentAway(err: Error, c: Context): boolean {
  return (err as NodeJS.ErrnoException).code === 'ECONNRESET' || clientHasGone(c);
}

/**
 * The client went away before its answer was sent: the connection is closed and the answer unfinished. Read from
 * Node's response on the real server (asking the fetch Request's signal there would build a Request whose signal
 * never aborts); from that signal for an in-process request.
 */
export function clientHasGone(c: Context): boolean {
  const node = nodeOf(c);
  const outgoing = node?.outgoing;
  if (!outgoing) return c.req.raw.signal?.aborted === true;
  const closed = outgoing.closed || outgoing.destroyed || node?.incoming.socket?.destroyed === true;
  return closed && !outgoing.writableFinished;
}

/** A known path asked with a method it does not answer: 405 with Allow, in the error shape. */
export function answerWrongMethods(app: EmulatorApp): void {
  app.use(
    methodNotAllowed({
      app,
      onMethodNotAllowed: (_c, methods) =>
        new HttpError(405, 'method_not_allowed', `this route answers ${methods.join(', ')} only`, {
          Allow: methods.join(', '),
        }).toResponse(),
    }),
  );
}
