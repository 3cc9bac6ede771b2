// Errors that render themselves in the contract's shape, and the one last-resort handler for everything else.
import type {Context} from 'hono';
import type {ContentfulStatusCode} from 'hono/utils/http-status';

export type ErrorCode =
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'invalid_request'
  | 'rate_limited'
  | 'vault_unavailable'
  | 'method_not_allowed'
  | 'conflict'
  | 'payload_too_large'
  | 'internal';

export class HttpError extends Error {
  readonly status: ContentfulStatusCode;
  readonly code: ErrorCode;
  readonly headers: Record<string, string>;

  constructor(
    status: ContentfulStatusCode,
    code: ErrorCode,
    message: string,
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'HttpError';
    this.status = status;
    this.code = code;
    this.headers = headers;
  }

  toResponse(): Response {
    return Response.json(
      {error: {code: this.code, message: this.message}},
      {status: this.status, headers: this.headers},
    );
  }
}

export const unauthorized = () =>
  // One message whatever the reason, so a caller learns nothing about which keys exist.
  new HttpError(401, 'unauthorized', 'missing or invalid API key; pass `Authorization: Bearer svc_…`');
export const forbidden = (message: string) => new HttpError(403, 'forbidden', message);
export const notFound = (message = 'no such resource') => new HttpError(404, 'not_found', message);
export const invalidRequest = (message: string) => new HttpError(400, 'invalid_request', message);
export const conflict = (message: string) => new HttpError(409, 'conflict', message);
/** 429 for an address that used up its failed authentications; the message and Retry-After say when to retry. */
export const rateLimited = (err: {message: string; retryAfterSeconds: number}) =>
  new HttpError(429, 'rate_limited', err.message, {'Retry-After': String(err.retryAfterSeconds)});

/** Hono's onError: known errors render themselves; anything else is logged and answered without internals. */
export function errorHandler(log: (line: string) => void) {
  return (err: Error, c: Context): Response => {
    if (err instanceof HttpError) return err.toResponse();
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
  return (err as NodeJS.ErrnoException).code === 'ECONNRESET' || c.req.raw.signal?.aborted === true;
}
