// Wire records of the svc API, defined once: the emulator answers with them, the client parses with them.
// Objects are loose so that fields the public spec does not name survive a round trip.
import {z} from 'zod';
import {
  API_KEY_STATUSES,
  DELIVERY_STATUSES,
  type ErrorCode,
  EVENT_BODY_ID_PATTERNS,
  ID_PATTERNS,
  EVENT_TYPES,
  type EventType,
  SANDBOX_LINK_KINDS,
  type SvcEvent,
  SANDBOX_LINK_STATUSES,
} from '../definitions.js';

// The allowed values are defined in definitions.ts; they are re-exported here for the schemas' users.
export {
  API_KEY_STATUSES,
  DELIVERY_STATUSES,
  type DeliveryStatus,
  ERROR_CODES,
  EVENT_TYPES,
  type EventType,
  KEY_EXPIRY_CHOICES,
  type KeyExpiryChoice,
} from '../definitions.js';

export const EventTypeSchema = z.enum(EVENT_TYPES);

// Parsed as any string (a client must not break on a finer timestamp), documented as date-time.
const timestamp = z.string().meta({format: 'date-time'});
const nullableTimestamp = timestamp.nullable();

/**
 * The error envelope of every answer that is not a success, /v1's and the emulator's control surface's alike; the
 * clients parse both with it. `problems` lists the refused fields of an `invalid_request` (the control surface's).
 */
export const ErrorBodySchema = z.object({
  error: z.looseObject({
    code: z.string(),
    message: z.string(),
    problems: z.array(z.unknown()).optional().catch(undefined),
  }),
});
export type ErrorBody = Exact<z.infer<typeof ErrorBodySchema>>;

/** The error body of one code: what the OpenAPI document gives for each error answer. */
export function errorBodySchemaFor(code: ErrorCode) {
  return z.object({error: z.looseObject({code: z.literal(code), message: z.string()})});
}

/**
 * A record's type exactly as its schema names it: the schemas parse the service's answers loosely (a field added
 * later still parses), but code reading them may use only the fields they name, so a misspelt field is a compile
 * error rather than `undefined` at run time.
 */
export type Exact<T> = T extends readonly (infer U)[]
  ? Exact<U>[]
  : T extends object
    ? {[K in keyof T as string extends K ? never : number extends K ? never : K]: Exact<T[K]>}
    : T;

export const OrgSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  created_at: timestamp,
});
export type Org = Exact<z.infer<typeof OrgSchema>>;

export const ApiKeySchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  created_by: z.string().nullable(),
  created_at: timestamp,
  last_used_at: nullableTimestamp,
  expires_at: nullableTimestamp,
  status: z.enum(API_KEY_STATUSES),
});
export type ApiKey = Exact<z.infer<typeof ApiKeySchema>>;

export const WebhookEndpointSchema = z.looseObject({
  id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  description: z.string().nullable(),
  created_at: timestamp,
});
export type WebhookEndpoint = Exact<z.infer<typeof WebhookEndpointSchema>>;

export const DeliverySchema = z.looseObject({
  id: z.string(),
  event_id: z.string(),
  event_type: z.string(),
  status: z.enum(DELIVERY_STATUSES),
  attempts: z.number().int().nonnegative(),
  created_at: timestamp,
  last_attempt_at: nullableTimestamp,
  next_attempt_at: nullableTimestamp,
  last_status_code: z.number().int().nullable(),
});
export type Delivery = Exact<z.infer<typeof DeliverySchema>>;

export const SandboxSchema = z.object({
  id: z.string(),
  name: z.string(),
  status: z.string(),
  desired_state: z.string(),
  last_error: z.string().optional(),
  expires_at: z.string().optional(),
});

/** The sandbox an event is about, as the contract gives it: its id's exact shape, `expires_at` a date-time. */
export const ContractSandboxSchema = SandboxSchema.extend({
  id: z.string().regex(ID_PATTERNS.sandbox),
  expires_at: timestamp.optional(),
});
export type SandboxSnapshot = Exact<z.infer<typeof SandboxSchema>>;

/** The event body, exactly (ids read by prefix only, so a longer id from the service still parses): `last_error` and `expires_at` only when present. */
export const EventSchema = z.object({
  id: z.string().regex(EVENT_BODY_ID_PATTERNS.event),
  type: EventTypeSchema,
  created_at: timestamp,
  org_id: z.string().regex(EVENT_BODY_ID_PATTERNS.org),
  data: z.looseObject({sandbox: SandboxSchema}),
});
export type {SvcEvent, SvcEventSandbox} from '../definitions.js';
// The schema parses exactly the plain type the receiver library hands out: a drift is a compile error here.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const eventSchemaMatchesType: Same<Exact<z.infer<typeof EventSchema>>, SvcEvent> = true;
void eventSchemaMatchesType;

/**
 * A port session, desktop link or browser URL of a sandbox (emulator control surface). The `url` carries the
 * link's token, so it is in the answer that creates the link and nowhere else.
 */
export const SandboxLinkSchema = z.object({
  id: z.string(),
  kind: z.enum(SANDBOX_LINK_KINDS),
  sandbox_id: z.string(),
  key_id: z.string(),
  /** The sandbox port a port session forwards to; null for the other kinds. */
  port: z.number().int().nullable(),
  created_at: timestamp,
  status: z.enum(SANDBOX_LINK_STATUSES),
});
export type SandboxLink = Exact<z.infer<typeof SandboxLinkSchema>>;

export const CreatedSandboxLinkSchema = SandboxLinkSchema.omit({status: true}).extend({url: z.string()});
export type CreatedSandboxLink = Exact<z.infer<typeof CreatedSandboxLinkSchema>>;

/**
 * The body of one event type as the contract gives it (the published JSON Schemas): EventSchema with `type`
 * fixed and every id in its exact shape. Receivers parse with EventSchema, which reads ids by prefix only.
 */
export function eventSchemaFor(type: EventType) {
  return EventSchema.extend({
    id: z.string().regex(ID_PATTERNS.event),
    type: z.literal(type),
    org_id: z.string().regex(ID_PATTERNS.org),
    data: z.looseObject({sandbox: ContractSandboxSchema}),
  });
}

export function listOf<T extends z.ZodType>(item: T) {
  return z.looseObject({data: z.array(item)});
}
export interface List<T> {
  data: T[];
}
