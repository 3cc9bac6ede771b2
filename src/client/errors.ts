// Typed errors of the API client, and the one function that turns an HTTP answer into one of them.
// Each carries a stable `code`, the CLI's `exitCode` and next steps, so the CLI renders them as they are.
import {ExitCode, type ExitCodeValue} from '../lib/exit-codes.js';

export interface ApiErrorOptions {
  code: string;
  status?: number;
  exitCode?: ExitCodeValue;
  suggestions?: string[];
}

export class ApiError extends Error {
  readonly code: string;
  /** HTTP status of the answer; absent when no answer arrived. */
  readonly status: number | undefined;
  readonly exitCode: ExitCodeValue;
  readonly suggestions: string[];

  constructor(message: string, options: ApiErrorOptions) {
    super(message);
    this.name = 'ApiError';
    this.code = options.code;
    this.status = options.status;
    this.exitCode = options.exitCode ?? ExitCode.error;
    this.suggestions = options.suggestions ?? [];
  }
}

export class UnauthorizedError extends ApiError {
  constructor(message = 'the API key was rejected (revoked or expired?). Run `svc login` with a new key') {
    super(message, {
      code: 'unauthorized',
      status: 401,
      exitCode: ExitCode.unauthorized,
      suggestions: ['Run `svc login` with a new key, or set SVC_API_KEY to a valid one'],
    });
    this.name = 'UnauthorizedError';
  }
}

export class ForbiddenError extends ApiError {
  constructor(accountUrl: string) {
    super(
      `API keys can only read; keys and webhook endpoints are created on the account page: ${accountUrl}`,
      {
        code: 'forbidden',
        status: 403,
        exitCode: ExitCode.forbidden,
        suggestions: [`Open ${accountUrl} to create or revoke keys and webhook endpoints`],
      },
    );
    this.name = 'ForbiddenError';
  }
}

export class NotFoundError extends ApiError {
  constructor(message: string) {
    super(message, {code: 'not_found', status: 404});
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

  constructor(retryAfterSeconds: number | undefined) {
    const wait = retryAfterSeconds === undefined ? 'a moment' : `${retryAfterSeconds} s`;
    super(`the API is rate limiting these requests; try again in ${wait}`, {
      code: 'rate_limited',
      status: 429,
      suggestions: [
        'Repeated failed logins from one address are rate limited: check the key before retrying',
      ],
    });
    this.name = 'RateLimitedError';
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

export class VaultUnavailableError extends ApiError {
  constructor() {
    super('this deployment has no vault key, so webhook deliveries cannot be read', {
      code: 'vault_unavailable',
      status: 503,
      suggestions: ['For the emulator: start it without --no-vault-key'],
    });
    this.name = 'VaultUnavailableError';
  }
}

export class NetworkError extends ApiError {
  /** The address that could not be reached (never carries the key: keys travel only in a header). */
  readonly url: string;

  constructor(url: string, reason: string, suggestions: string[]) {
    super(`could not reach ${url}: ${reason}`, {code: 'network_error', suggestions});
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
    case 400:
    case 422:
      return new InvalidRequestError(remote?.message ?? `the API refused the request to ${ctx.url}`, status);
    case 401:
      return new UnauthorizedError();
    case 403:
      return new ForbiddenError(ctx.accountUrl);
    case 404:
      return new NotFoundError(remote?.message ?? `not found: ${ctx.url}`);
    case 429:
      return new RateLimitedError(ctx.retryAfterSeconds);
    default:
      break;
  }
  if (status === 503 && remote?.code === 'vault_unavailable') return new VaultUnavailableError();
  const detail = remote ? `: ${remote.message}` : '';
  return new ApiError(`the API answered ${status} for ${ctx.url}${detail}`, {
    code: remote?.code ?? (status >= 500 ? 'server_error' : 'http_error'),
    status,
    suggestions: status >= 500 ? ['The service had a problem; try again shortly'] : [],
  });
}

/** The `{error: {code, message}}` body, cleaned for a terminal, or undefined when the body is not that shape. */
function remoteError(body: unknown): {code: string; message: string} | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const error = (body as {error?: unknown}).error;
  if (typeof error !== 'object' || error === null) return undefined;
  const {code, message} = error as {code?: unknown; message?: unknown};
  if (typeof code !== 'string' || typeof message !== 'string') return undefined;
  return {code: clean(code, 64), message: clean(message, 300)};
}

/** A remote message must not be able to move the cursor or recolour the terminal. */
function clean(text: string, max: number): string {
  const plain = text.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');
  return plain.length > max ? `${plain.slice(0, max - 3)}...` : plain;
}
