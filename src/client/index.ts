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
export {
  type ClockMoveOptions,
  EmulatorControl,
  EmulatorControlError,
  type EmulatorControlOptions,
  type WaitForDeliveryOptions,
} from './emulator-control.js';
// Every record a client or a test holds, by name: exact types, so a misspelt field does not compile.
export type {
  ChaosSettings,
  ClockState,
  CreatedKey,
  CreatedWebhook,
  DeliveryAttempt,
  DeliveryDetail,
  EndpointChaos,
  EndpointHealth,
  KeyRecord,
  OrgClockState,
  OrgDeleted,
  OrgReset,
  Ready,
  SandboxMove,
  SandboxRecord,
  StateLoadResult,
  StateReset,
} from './emulator-control.js';
export type {
  CreateKeyRequest,
  CreateOrgRequest,
  CreateSandboxRequest,
  CreateWebhookRequest,
  SandboxActionRequest,
  TriggerRequest,
} from '../schemas/emulator.js';
export type {ApiKey, Delivery, List, Org, SandboxLink, SvcEvent, WebhookEndpoint} from '../schemas/index.js';
export type {
  DeliveryStatus,
  Duration,
  EventType,
  KeyExpiryChoice,
  SandboxAction,
} from '../definitions.js';
