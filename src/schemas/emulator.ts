// Wire records of the emulator's control surface (/_emulator), defined once like /v1's: the emulator's routes
// answer with them, the control client (src/client/emulator-control.ts) parses every answer with them, and the
// CLI's screens read their types. The rules (allowed values, id shapes) come from the definitions. Both sides
// are this package, so records are exact objects (fields not named here are dropped when parsed). The records of
// the relay behind `svc listen` (emulator-relay.ts) and of state files (emulator-state.ts) are handed out here too.
import {z} from 'zod';
import {
  ATTEMPT_TRIGGERS,
  CLOCK_MODES,
  CONTROL_TOKEN_SCOPES,
  DELIVERY_STATUSES,
  ENDPOINT_CHAOS_SOURCES,
  EVENT_TYPES,
  KEY_EXPIRY_CHOICES,
  LOCAL_URL_KINDS,
  PROBLEM_CODES,
  SANDBOX_LINK_KINDS,
} from '../definitions.js';
import {
  ApiKeySchema,
  DeliverySchema,
  EventSchema,
  type Exact,
  OrgSchema,
  WebhookEndpointSchema,
} from './index.js';

export * from './emulator-relay.js';
export * from './emulator-state.js';

const timestamp = z.string();

// ---- Errors ---------------------------------------------------------------------------------------------

/** One refused field of an `invalid_request`; `code` when a caller may act on the reason. */
export const ProblemSchema = z.looseObject({
  field: z.string().optional(),
  message: z.string(),
  code: z.enum(PROBLEM_CODES).optional(),
  kind: z.enum(LOCAL_URL_KINDS).optional(),
});
export type Problem = Exact<z.infer<typeof ProblemSchema>>;

// ---- Requests -------------------------------------------------------------------------------------------

/** Every request that creates something may name an org; absent means the emulator's default org. */
const orgField = {org_id: z.string().optional()};

export const CreateOrgRequestSchema = z.object({name: z.string()});
export type CreateOrgRequest = Exact<z.infer<typeof CreateOrgRequestSchema>>;
/**
 * `POST /_emulator/control-tokens`, one field of three: the token of an org there is (`org_id`), a new org of this
 * name with its token (`new_org`), or a token that only makes orgs (`scope: "new_orgs"`).
 */
export type CreateControlTokenRequest = {org_id: string} | {new_org: string} | {scope: 'new_orgs'};
/** A control token, shown in this answer only: what it reaches, and its org (null for `new_orgs`). */
export const ControlTokenSchema = z.object({
  token: z.string(),
  scope: z.enum(CONTROL_TOKEN_SCOPES),
  org: OrgSchema.nullable(),
});
export type ControlToken = Exact<z.infer<typeof ControlTokenSchema>>;

export const CreateKeyRequestSchema = z.object({
  name: z.string(),
  expires: z.enum(KEY_EXPIRY_CHOICES).optional(),
  created_by: z.string().optional(),
  ...orgField,
});
export type CreateKeyRequest = Exact<z.infer<typeof CreateKeyRequestSchema>>;

export const CreateWebhookRequestSchema = z.object({
  url: z.string(),
  events: z.array(z.enum(EVENT_TYPES)),
  description: z.string().optional(),
  ...orgField,
});
export type CreateWebhookRequest = Exact<z.infer<typeof CreateWebhookRequestSchema>>;

export const MoveClockRequestSchema = z.union([z.object({advance: z.string()}), z.object({set: z.string()})]);
export type MoveClockRequest = Exact<z.infer<typeof MoveClockRequestSchema>>;

export const TriggerRequestSchema = z.object({
  type: z.enum(EVENT_TYPES),
  sandbox_id: z.string().optional(),
  last_error: z.string().optional(),
  /** Values placed at dotted paths of the event body (`data.sandbox.name`), checked against its schema. */
  set: z.array(z.object({path: z.string(), value: z.unknown()})).optional(),
  ...orgField,
});
export type TriggerRequest = Exact<z.infer<typeof TriggerRequestSchema>>;

export const CreateSandboxRequestSchema = z.object({
  name: z.string().optional(),
  expires_in: z.string().optional(),
  ...orgField,
});
export type CreateSandboxRequest = Exact<z.infer<typeof CreateSandboxRequestSchema>>;

export const SandboxActionRequestSchema = z.object({last_error: z.string().optional(), ...orgField});
export type SandboxActionRequest = Exact<z.infer<typeof SandboxActionRequestSchema>>;

export const CreateLinkRequestSchema = z.object({
  kind: z.enum(SANDBOX_LINK_KINDS),
  key_id: z.string(),
  port: z.number().int().optional(),
});
export type CreateLinkRequest = Exact<z.infer<typeof CreateLinkRequestSchema>>;

// ---- Answers --------------------------------------------------------------------------------------------

/** `rate_limit: "off"` only when the failed-authentication limit is off (`--no-rate-limit`, for API fuzzers). */
export const HealthSchema = z.object({
  ok: z.literal(true),
  org_id: z.string(),
  rate_limit: z.literal('off').optional(),
});
export type Health = Exact<z.infer<typeof HealthSchema>>;

export {OrgSchema};

/** A key as created: the secret in this answer only. */
export const CreatedKeySchema = ApiKeySchema.omit({status: true, last_used_at: true}).extend({
  secret: z.string(),
});
export type CreatedKey = Exact<z.infer<typeof CreatedKeySchema>>;

/** A key as revoking it leaves it. */
/** A key as the control surface answers; `already_revoked` when a revoke found it revoked and changed nothing. */
export const KeyRecordSchema = ApiKeySchema.extend({already_revoked: z.boolean().optional()});
export type KeyRecord = Exact<z.infer<typeof KeyRecordSchema>>;

/** An endpoint as created: the signing secret in this answer only. */
export const CreatedWebhookSchema = WebhookEndpointSchema.extend({
  secret: z.string(),
  /** What the emulator accepted but wants said, e.g. a host it could not resolve offline. */
  warnings: z.array(z.string()),
});
export type CreatedWebhook = Exact<z.infer<typeof CreatedWebhookSchema>>;

/** The emulator's clock; `scale` on a scaled clock only: how many times as fast as real time it runs. */
export const ClockStateSchema = z.object({
  now: timestamp,
  mode: z.enum(CLOCK_MODES),
  scale: z.number().positive().optional(),
});
export type ClockState = Exact<z.infer<typeof ClockStateSchema>>;
/** One org's clock: `own` when it has a clock of its own, else it shows the emulator's. */
export const OrgClockStateSchema = z.object({
  org_id: z.string(),
  now: timestamp,
  mode: z.enum(CLOCK_MODES),
  own: z.boolean(),
});
export type OrgClockState = Exact<z.infer<typeof OrgClockStateSchema>>;
/** What `POST /_emulator/orgs/{id}/reset` answers. */
export const OrgResetSchema = z.object({reset: z.literal(true), org_id: z.string()});
export type OrgReset = Exact<z.infer<typeof OrgResetSchema>>;
/** What `DELETE /_emulator/orgs/{id}` answers. */
export const OrgDeletedSchema = z.object({deleted: z.literal(true), org_id: z.string()});
export type OrgDeleted = Exact<z.infer<typeof OrgDeletedSchema>>;
/** `GET /_emulator/ready`, the one state-free answer besides the OpenAPI document served without the admin token. */
export const ReadySchema = z.object({ready: z.literal(true)});
export type Ready = Exact<z.infer<typeof ReadySchema>>;

export const LimiterResetSchema = z.object({reset: z.literal(true)});
export type LimiterReset = Exact<z.infer<typeof LimiterResetSchema>>;

/** A sandbox as the control surface shows it; timestamps as ISO strings, absent values as null. */
export const SandboxRecordSchema = z.object({
  id: z.string(),
  org_id: z.string(),
  name: z.string(),
  status: z.string(),
  desired_state: z.string(),
  last_error: z.string().nullable(),
  expires_at: timestamp.nullable(),
  created_at: timestamp,
  updated_at: timestamp,
});
export type SandboxRecord = Exact<z.infer<typeof SandboxRecordSchema>>;

/** A sandbox move: the sandbox afterwards, the event it emitted (if any) and how many deliveries that made. */
export const SandboxMoveSchema = z.object({
  sandbox: SandboxRecordSchema,
  event: EventSchema.nullable(),
  deliveries: z.number().int().nonnegative(),
});
export type SandboxMove = Exact<z.infer<typeof SandboxMoveSchema>>;

/** One attempt of a delivery, the one record every reader of attempts uses (control route, page, TUI, MCP). */
export const DeliveryAttemptSchema = z.object({
  /** 1 for the first attempt; resends take the next number, like any attempt. */
  attempt: z.number().int(),
  started_at: timestamp,
  /** The `t` of the attempt's Svc-Signature (unix seconds); null when no signature could be made. */
  signature_t: z.number().int().nullable(),
  trigger: z.enum(ATTEMPT_TRIGGERS),
  /** The receiver's status code; null when it never answered (see `error`). */
  status_code: z.number().int().nullable(),
  /** Network error, timeout or refused redirect; null when the receiver answered with a plain status. */
  error: z.string().nullable(),
  duration_ms: z.number(),
  /** The first RESPONSE_BODY_LIMIT_BYTES of the receiver's answer. */
  response_body: z.string().nullable(),
});
export type DeliveryAttempt = Exact<z.infer<typeof DeliveryAttemptSchema>>;

/** One delivery as the emulator knows it: the list's record, the event every attempt sent, every attempt. */
export const DeliveryDetailSchema = z.object({
  delivery: DeliverySchema,
  endpoint_id: z.string(),
  /** The event exactly as every attempt sent it, parsed. */
  event: EventSchema,
  /** Oldest first. */
  attempts: z.array(DeliveryAttemptSchema),
});
export type DeliveryDetail = Exact<z.infer<typeof DeliveryDetailSchema>>;

/**
 * What one resend did: the attempt it made, the receiver's answer to it, and the delivery's state after it (an
 * attempt answered 2xx in time makes the delivery succeeded, as any attempt does; one that fails leaves the state
 * as it was).
 */
export const ResendOutcomeSchema = z.object({
  delivery_id: z.string(),
  attempt: z.number().int(),
  /** The receiver's status code; null when it never answered (see `error`). */
  status_code: z.number().int().nullable(),
  /** Network error, timeout or refused redirect; null when the receiver answered with a plain status. */
  error: z.string().nullable(),
  status: z.enum(DELIVERY_STATUSES),
});
export type ResendOutcome = Exact<z.infer<typeof ResendOutcomeSchema>>;

/** One resend's answer: the delivery after it, and the resend's own outcome. */
export const ResentDeliverySchema = DeliveryDetailSchema.extend({resend: ResendOutcomeSchema});
export type ResentDelivery = Exact<z.infer<typeof ResentDeliverySchema>>;

export const ResendFailedRequestSchema = z.object({
  webhook_id: z.string().optional(),
  /** Only deliveries created within this duration of the emulator clock's now (`90m`, `1d`). */
  since: z.string().optional(),
  /** At most this many resends (RESEND_FAILED_LIMIT); one answer makes at most a page of them (RESEND_FAILED_PAGE). */
  limit: z.number().int().optional(),
  /** Where the previous answer stopped (its `next`): only failed deliveries after it. */
  after: z.string().optional(),
  ...orgField,
});
export type ResendFailedRequest = z.infer<typeof ResendFailedRequestSchema>;

/**
 * What one request of a bulk resend did: how many failed deliveries it resent, which (oldest first) and how each
 * went; `next` is where to go on when more match (null when none is left after them).
 */
export const ResendFailedResultSchema = z.object({
  resent: z.number().int().nonnegative(),
  deliveries: z.array(z.string()),
  outcomes: z.array(ResendOutcomeSchema),
  next: z.string().nullable(),
});
export type ResendFailedResult = z.infer<typeof ResendFailedResultSchema>;

/**
 * How one endpoint's deliveries are going, over the deliveries its list shows (the most recent, within
 * retention): how many there are, how many failed for good or are still pending, and the newest of them.
 */
export const EndpointHealthSchema = z.object({
  endpoint_id: z.string(),
  recent: z.number().int().nonnegative(),
  failed: z.number().int().nonnegative(),
  pending: z.number().int().nonnegative(),
  /** The newest delivery; null when the endpoint has none. */
  last: DeliverySchema.nullable(),
});
export type EndpointHealth = Exact<z.infer<typeof EndpointHealthSchema>>;

/** The settings of delivery chaos, as the control route takes and shows them. */
export const ChaosSettingsSchema = z.object({
  /** Chance (0 to 1) that an event is delivered a second time, at once, with the same event id. */
  duplicate: z.number(),
  /** Chance (0 to 1) that a delivery is held back past the longest delay, so later events overtake it. */
  reorder: z.number(),
  /** Every first attempt waits a time drawn between these (emulator clock). */
  delay_min_ms: z.number(),
  delay_max_ms: z.number(),
  seed: z.number(),
});
export type ChaosSettings = Exact<z.infer<typeof ChaosSettingsSchema>>;

export const EndpointChaosSchema = z.object({
  endpoint_id: z.string(),
  /** The settings in force; null when the endpoint's deliveries are made plainly. */
  chaos: ChaosSettingsSchema.nullable(),
  /** Where they come from: the endpoint's own, the emulator's `--chaos`, or none. */
  source: z.enum(ENDPOINT_CHAOS_SOURCES),
});
export type EndpointChaos = Exact<z.infer<typeof EndpointChaosSchema>>;

// ---- The request log ------------------------------------------------------------------------------------

/** One request as the emulator's request log keeps it; `reason` for every refusal. */
export const RequestLogEntrySchema = z.object({
  seq: z.number().int(),
  time: z.string(),
  method: z.string(),
  path: z.string(),
  status: z.number().int(),
  duration_ms: z.number(),
  key_id: z.string().optional(),
  key_prefix: z.string().optional(),
  reason: z.string().optional(),
  detail: z.string().optional(),
});
export type RequestLogEntry = Exact<z.infer<typeof RequestLogEntrySchema>>;

export const RequestLogPageSchema = z.object({data: z.array(RequestLogEntrySchema), last: z.number().int()});
export type RequestLogPage = Exact<z.infer<typeof RequestLogPageSchema>>;
