// Every record a test holds, by name: the same types the control client answers with.
export type {
  ClockMoveOptions,
  ClockState,
  CreatedKey,
  CreatedWebhook,
  DeliveryAttempt,
  DeliveryDetail,
  EndpointHealth,
  KeyRecord,
  OrgClockState,
  OrgDeleted,
  OrgReset,
  Ready,
  SandboxMove,
  SandboxRecord,
  WaitForDeliveryOptions,
} from '@svc/client';
export type {
  CreateKeyRequest,
  CreateSandboxRequest,
  CreateWebhookRequest,
  SandboxActionRequest,
  TriggerRequest,
} from '../schemas/emulator.js';
export type {ApiKey, Delivery, Org, SvcEvent, WebhookEndpoint} from '../schemas/index.js';
export type {DeliveryStatus, Duration, EventType, SandboxAction} from '../definitions.js';
