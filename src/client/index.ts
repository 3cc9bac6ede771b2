// `svc/client`: the typed API client, usable without the CLI.
export {
  accountUrlFor,
  type ClientOptions,
  createClient,
  isWebhookId,
  type RequestOptions,
  type SvcClient,
  WEBHOOK_ID_PATTERN,
} from './client.js';
export {
  ApiError,
  type ApiErrorOptions,
  type ClientErrorCode,
  errorFromResponse,
  ForbiddenError,
  InvalidRequestError,
  NetworkError,
  NotFoundError,
  RateLimitedError,
  UnauthorizedError,
  VaultUnavailableError,
} from './errors.js';
export {nodeHttpFetch} from './node-transport.js';
export type {FetchLike, ResponseLike, Sleep} from './transport.js';
export {ApiUrlError, normalizeApiUrl} from './api-url.js';
export {DEFAULT_ACCOUNT_URL, DEFAULT_API_URL} from './defaults.js';
