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
export {DEFAULT_API_URL} from '../auth/constants.js';
export {normalizeApiUrl} from '../auth/url-policy.js';
