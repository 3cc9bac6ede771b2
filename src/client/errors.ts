// Typed errors of the API client, and the one function that turns an HTTP answer into one of them.
// Each carries what a program branches on: a stable `code` (the service's codes, from definitions.ts, plus a few
// of the client's own for failures before or outside an answer), the HTTP `status` when an answer arrived, and
// a message for people. What to do next and how a process exits are for the caller to decide: the CLI maps
// these in src/lib/error-mapper.ts.
import {ERROR_STATUS, type ErrorCode, type LocalUrlKind, type ProblemCode} from '../definitions.js';
import type {ErrorBody} from '../schemas/index.js';

/** Codes of failures the service never sends: they happen before a request, or outside the answer's body. */
export type ClientErrorCode =
  | 'invalid_api_url'
  | 'invalid_response'
  | 'unexpected_redirect'
  | 'network_error'
  | 'server_error'
  | 'http_error';

export interface ApiErrorOptions {
  /** A service code, one of the client's own, or a code an error body carried that this version does not know. */
  code: ErrorCode | ClientErrorCode | (string & {});
  status?: number;
  cause?: unknown;
}

export class ApiError extends Error {
  readonly code: string;
  /** HTTP status of the answer; absent when no answer arrived. */
  readonly status: number | undefined;

  constructor(message: string, options: ApiErrorOptions) {
    super(message, options.cause === undefined ? undefined : {cause: options.cause});
    this.name = 'ApiError';
    this.code = options.code;
    this.status = options.status;
  }
}

export class UnauthorizedError extends ApiError {
  constructor(message = 'the API key was rejected (revoked or expired?)') {
    super(message, {code: 'unauthorized', status: ERROR_STATUS.unauthorized});
    this.name = 'UnauthorizedError';
  }
}

export class ForbiddenError extends ApiError {
  /** Where keys and webhook endpoints are managed instead. */
  readonly accountUrl: string;

  constructor(accountUrl: string) {
    super(
      `API keys can only read; keys and webhook endpoints are created on the account page: ${accountUrl}`,
      {code: 'forbidden', status: ERROR_STATUS.forbidden},
    );
    this.name = 'ForbiddenError';
    this.accountUrl = accountUrl;
  }
}

export class NotFoundError extends ApiError {
  constructor(message: string) {
    super(message, {code: 'not_found', status: ERROR_STATUS.not_found});
    this.name = 'NotFoundError';
  }
}

export class InvalidRequestError extends ApiError {
  constructor(message: string, status?: number) {
    super(message, {code: 'invalid_request', status});
    this.name = 'InvalidRequestError';
  }
}

export class RateLimitedError extends ApiError {
  /** How long the API asked us to wait, when it said so. */
  readonly retryAfterSeconds: number | undefined;

  /** The request's address, when known: on loopback it is most likely an emulator, whose lockout can be cleared. */
  readonly url: string | undefined;

  constructor(retryAfterSeconds: number | undefined, url?: string) {
    const wait = retryAfterSeconds === undefined ? 'a moment' : `${retryAfterSeconds} s`;
    super(`the API is rate limiting these requests; try again in ${wait}`, {
      code: 'rate_limited',
      status: ERROR_STATUS.rate_limited,
    });
    this.name = 'RateLimitedError';
    this.retryAfterSeconds = retryAfterSeconds;
    this.url = url;
  }
}

export class VaultUnavailableError extends ApiError {
  constructor() {
    super('this deployment has no vault key, so webhook deliveries cannot be read', {
      code: 'vault_unavailable',
      status: ERROR_STATUS.vault_unavailable,
    });
    this.name = 'VaultUnavailableError';
  }
}

export class NetworkError extends ApiError {
  /** The address that could not be reached (never carries the key: keys travel only in a header). */
  readonly url: string;

  constructor(url: string, reason: string, cause?: unknown) {
    super(`could not reach ${url}: ${reason}`, {code: 'network_error', cause});
    this.name = 'NetworkError';
    this.url = url;
  }
}

export interface ErrorContext {
  /** The request's address, for messages. */
  url: string;
  accountUrl: string;
  retryAfterSeconds?: number;
}

/** The single mapping from an HTTP error answer to a typed error. `body` is the parsed JSON, if any. */
export function errorFromResponse(status: number, body: unknown, ctx: ErrorContext): ApiError {
  const remote = remoteError(body);
  switch (status) {
    case ERROR_STATUS.invalid_request:
    case 422:
      return new InvalidRequestError(remote?.message ?? `the API refused the request to ${ctx.url}`, status);
    case ERROR_STATUS.unauthorized:
      return new UnauthorizedError();
    case ERROR_STATUS.forbidden:
      return new ForbiddenError(ctx.accountUrl);
    case ERROR_STATUS.not_found:
      return new NotFoundError(remote?.message ?? `not found: ${ctx.url}`);
    case ERROR_STATUS.rate_limited:
      return new RateLimitedError(ctx.retryAfterSeconds, ctx.url);
    default:
      break;
  }
  if (status === ERROR_STATUS.vault_unavailable && remote?.code === 'vault_unavailable') {
    return new VaultUnavailableError();
  }
  const detail = remote ? `: ${remote.message}` : '';
  return new ApiError(`the API answered ${status} for ${ctx.url}${detail}`, {
    code: remote?.code ?? (status >= 500 ? 'server_error' : 'http_error'),
    status,
  });
}

/**
 * The error envelope of an answer (src/schemas ErrorBodySchema: `{error: {code, message, problems?}}`), or
 * undefined when it is not one. Read by hand, as that schema reads it (test/client/errors.test.ts holds the two
 * together): importing the client loads no zod, and a read command loads it with its first answer, not at start.
 */
export function errorEnvelopeOf(body: unknown): ErrorBody['error'] | undefined {
  const error = isPlainRecord(body) ? body.error : undefined;
  if (!isPlainRecord(error) || typeof error.code !== 'string' || typeof error.message !== 'string')
    return undefined;
  // Unknown fields pass through (the schema's object is loose); `problems` that is not a list reads as undefined.
  const {problems, ...rest} = error;
  const envelope: ErrorBody['error'] = {...rest, code: error.code, message: error.message};
  if ('problems' in error) envelope.problems = Array.isArray(problems) ? [...problems] : undefined;
  return envelope;
}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The envelope's code and message, cleaned for a terminal, or undefined when the body is not the envelope. */
function remoteError(body: unknown): {code: string; message: string} | undefined {
  const error = errorEnvelopeOf(body);
  if (!error) return undefined;
  return {code: clean(error.code, 64), message: clean(error.message, 300)};
}

/** A remote message must not be able to move the cursor or recolour the terminal. */
function clean(text: string, max: number): string {
  const plain = text.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');
  return plain.length > max ? `${plain.slice(0, max - 3)}...` : plain;
}

/** One refused field of a control request (src/schemas/emulator.ts ProblemSchema), kept here free of zod. */
export interface ControlProblem {
  field?: string;
  message: string;
  code?: ProblemCode;
  /** With `local_url`: where the URL points. */
  kind?: LocalUrlKind;
}

/**
 * An error of the emulator's control surface (src/client/emulator-control.ts): its `code`, the HTTP `status`
 * (0 when the emulator could not be reached) and, for bad input, each refused field. Defined here, apart from
 * the control client, so the CLI's error rendering loads neither the client nor its schemas.
 */
export class EmulatorControlError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
    /** Each refused input field of an invalid_request, so a caller can tell which one to fix. */
    readonly problems: readonly ControlProblem[] = [],
  ) {
    super(message);
    this.name = 'EmulatorControlError';
  }
}
