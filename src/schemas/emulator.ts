// Wire records of the emulator's control surface (/_emulator), defined once like /v1's: the emulator's routes
// answer with them, the control client (src/client/emulator-control.ts) parses every answer with them, and the
// CLI's screens read their types. The rules (allowed values, id shapes) come from the definitions. Both sides
// are this package, so records are exact objects (fields not named here are dropped when parsed).
import {z} from 'zod';
import {
  ATTEMPT_TRIGGERS,
  CLOCK_MODES,
  CONTROL_TOKEN_SCOPES,
  DELIVERY_STATUSES,
  ENDPOINT_CHAOS_SOURCES,
  EVENT_TYPES,
  ID_PATTERNS,
  KEY_EXPIRY_CHOICES,
  LOCAL_URL_KINDS,
  PROBLEM_CODES,
  RELAY_LISTENER_ID_PATTERN,
  RELAY_LISTENER_ID_RULE,
  RELAY_NAME_PATTERN,
  RELAY_NAME_RULE,
  RESPONSE_BODY_LIMIT_BYTES,
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
import {SNAPSHOT_TABLES} from './snapshot.js';

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

/** The one shape of a relay's registration: the emulator checks a request with it, the client's types come from it. */
export const RegisterRelayRequestSchema = z.strictObject({
  name: z
    .string({error: 'name must be a string'})
    .regex(RELAY_NAME_PATTERN, {error: `name must be ${RELAY_NAME_RULE}`})
    .optional(),
  events: z
    .array(z.enum(EVENT_TYPES, {error: `events must be among ${EVENT_TYPES.join(', ')}`}))
    .min(1, {error: 'events must name at least one event type'})
    .optional(),
  org_id: z
    .string({error: 'org_id must be a string'})
    .regex(ID_PATTERNS.org, {error: 'org_id is not an org id'})
    .optional(),
  /**
   * The run about to stream: it holds the relay from now on, or is refused at once when another run holds it
   * (409 conflict naming that run). `pid` and `host` name it to a later run refused in turn.
   */
  listener: z
    .string()
    .regex(RELAY_LISTENER_ID_PATTERN, {error: `listener must be ${RELAY_LISTENER_ID_RULE}`})
    .optional(),
  pid: z
    .number({error: 'pid must be a number'})
    .int()
    .min(1)
    .max(2 ** 31 - 1)
    .optional(),
  /** The machine's name as the run knows it; one that is no plain host name is left out rather than refused. */
  host: z.string({error: 'host must be a string'}).max(253).optional(),
  /** Take the relay from the run holding it (needs `listener`): that run's stream is told by whom, and ends. */
  take_over: z.boolean({error: 'take_over must be true or false'}).optional(),
});
export type RegisterRelayRequest = Exact<z.infer<typeof RegisterRelayRequestSchema>>;

/** What `svc listen` reports of one relayed attempt: the local server's answer, or why there was none. */
export const RelayReportSchema = z.strictObject({
  delivery_id: z.string({error: 'delivery_id must be a string'}).max(64),
  attempt: z.number({error: 'attempt must be a number'}).int().min(1).max(100),
  status_code: z.number().int().min(100).max(999).nullable(),
  error: z.string().max(2000).nullable(),
  duration_ms: z.number().min(0).max(3_600_000),
  /** The first bytes of the answer, as text (a character may take up to 4 bytes). */
  body: z
    .string()
    .max(RESPONSE_BODY_LIMIT_BYTES * 4)
    .nullable(),
});
export type RelayReport = Exact<z.infer<typeof RelayReportSchema>>;

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

/** The `svc listen` run holding a relay, as another run is told of it: its process, machine and start. */
export const RelayHolderSchema = z.object({
  pid: z.number().int().nullable(),
  host: z.string().nullable(),
  /** ISO time it began to hold the relay. */
  since: z.string(),
});
export type RelayHolder = Exact<z.infer<typeof RelayHolderSchema>>;

/** The relay endpoint `svc listen` receives through; its secret is the same every time. */
export const RelayRegistrationSchema = z.object({
  endpoint_id: z.string(),
  name: z.string(),
  events: z.array(z.string()),
  secret: z.string(),
  /** True when this call made the relay endpoint, and so its signing secret: a receiver needs the new one. */
  created: z.boolean().optional(),
  /** With `take_over`: the run that held the relay until this call, told that it was taken over. */
  took_over_from: RelayHolderSchema.optional(),
});
export type RelayRegistration = Exact<z.infer<typeof RelayRegistrationSchema>>;

// ---- The relay stream (NDJSON, one message a line) ------------------------------------------------------

/** One attempt handed to `svc listen`: the exact headers a direct attempt would carry, and the stored bytes. */
export const RelayDeliverySchema = z.object({
  type: z.literal('delivery'),
  delivery_id: z.string(),
  attempt: z.number().int(),
  event_id: z.string(),
  event_type: z.string(),
  headers: z.record(z.string(), z.string()),
  body: z.string(),
});
export type RelayDelivery = Exact<z.infer<typeof RelayDeliverySchema>>;

export const RelayMessageSchema = z.discriminatedUnion('type', [
  z.object({type: z.literal('connected'), endpoint_id: z.string()}),
  z.object({type: z.literal('ping')}),
  // The relay endpoint was deleted: the stream ends, and its listener with it.
  z.object({type: z.literal('deleted'), endpoint_id: z.string()}),
  // Another run took the relay (`svc listen --take-over`): the stream ends, and its listener stops for good.
  z.object({type: z.literal('taken_over'), endpoint_id: z.string(), by: RelayHolderSchema}),
  RelayDeliverySchema,
]);
export type RelayMessage = Exact<z.infer<typeof RelayMessageSchema>>;

// ---- State files and the request log ------------------------------------------------------------------------

export const ImportStateRequestSchema = z.object({
  /** The file's name, for every message about it. */
  source: z.string(),
  document: z.unknown(),
  mode: z.enum(['merge', 'replace']),
});
export type ImportStateRequest = Exact<z.infer<typeof ImportStateRequestSchema>>;

const SeededKeySchema = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  expires_at: z.string().nullable(),
  /** Only for a key the seed gave no secret: made by the emulator, shown this once. */
  secret: z.string().optional(),
});
const SeededWebhookSchema = z.object({id: z.string(), url: z.string(), secret: z.string().optional()});

/** What loading a seed did: each org with what was made in it (secrets only where the seed gave none). */
export const SeedLoadResultSchema = z.object({
  kind: z.literal('seed'),
  default_org_id: z.string(),
  orgs: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      keys: z.array(SeededKeySchema),
      webhooks: z.array(SeededWebhookSchema),
      sandboxes: z.array(z.object({id: z.string(), name: z.string(), status: z.string()})),
      people: z.array(z.object({email: z.string(), role: z.string()})),
    }),
  ),
  warnings: z.array(z.string()),
});
export type SeedLoadResult = Exact<z.infer<typeof SeedLoadResultSchema>>;

/** What loading a snapshot did: rows per table, and whether a manual clock was set to the snapshot's time. */
export const SnapshotLoadResultSchema = z.object({
  kind: z.literal('snapshot'),
  default_org_id: z.string(),
  rows: z.record(z.enum(SNAPSHOT_TABLES), z.number().int()),
  clock: z.enum(['set', 'kept']),
});
export type SnapshotLoadResult = Exact<z.infer<typeof SnapshotLoadResultSchema>>;

export const StateLoadResultSchema = z.discriminatedUnion('kind', [
  SeedLoadResultSchema,
  SnapshotLoadResultSchema,
]);
export type StateLoadResult = Exact<z.infer<typeof StateLoadResultSchema>>;

export const StateResetSchema = z.object({reset: z.literal(true), default_org_id: z.string()});
export type StateReset = Exact<z.infer<typeof StateResetSchema>>;

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
