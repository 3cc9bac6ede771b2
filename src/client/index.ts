// `@svc/client`: the typed API client for `/v1` and the emulator's control client, usable without the CLI.
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
  type ControlProblem,
  EmulatorControlError,
  type ErrorContext,
  errorEnvelopeOf,
  errorFromResponse,
  ForbiddenError,
  InvalidRequestError,
  NetworkError,
  NotFoundError,
  RateLimitedError,
  UnauthorizedError,
  VaultUnavailableError,
} from './errors.js';
export {type FetchLike, type ResponseLike, realSleep, type Sleep} from './transport.js';
export {ApiUrlError, isLoopbackHost, normalizeApiUrl} from './api-url.js';
export {DEFAULT_ACCOUNT_URL, DEFAULT_API_URL} from './defaults.js';
export {accountHostName, accountOrigin, localAccountUrl, portOfAccountHostName} from './account-address.js';
export {localhostLookup} from './localhost-lookup.js';
export {type RuntimeInfo, readRuntimeFile} from '../emulator-layout/runtime.js';
export * from './emulator-control.js';
export type {
  ApiKey,
  CreatedSandboxLink,
  Delivery,
  List,
  Org,
  SandboxLink,
  SvcEvent,
  WebhookEndpoint,
} from '../schemas/index.js';
export type {
  CreateKeyRequest,
  CreateOrgRequest,
  CreateSandboxRequest,
  CreateWebhookRequest,
  SandboxActionRequest,
  TriggerRequest,
} from '../schemas/emulator.js';
export type {
  DeliveryStatus,
  Duration,
  EventType,
  KeyExpiryChoice,
  SandboxAction,
} from '../definitions.js';
