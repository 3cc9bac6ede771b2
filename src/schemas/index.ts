// Wire records of the svc API, defined once: the emulator answers with them, the client parses with them.
// Objects are loose so that fields the public spec does not name survive a round trip.
// The records a read command parses have modules of their own (org.ts, api-key.ts, webhook-endpoint.ts,
// delivery.ts, list.ts), which the client loads one by one: `svc keys list` constructs the key's schema, not
// every schema here.
import {z} from 'zod';
import {
  type ErrorCode,
  EVENT_BODY_ID_PATTERNS,
  ID_PATTERNS,
  EVENT_TYPES,
  type EventType,
  SANDBOX_LINK_KINDS,
  type SvcEvent,
  SANDBOX_LINK_STATUSES,
} from '../definitions.js';
import type {Exact} from './exact.js';
import {timestamp} from './timestamp.js';

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

export {ApiKeySchema, type ApiKey} from './api-key.js';
export {DeliverySchema, type Delivery} from './delivery.js';
export type {Exact} from './exact.js';
export {listOf, type List} from './list.js';
export {OrgSchema, type Org} from './org.js';
export {WebhookEndpointSchema, type WebhookEndpoint} from './webhook-endpoint.js';

export const EventTypeSchema = z.enum(EVENT_TYPES);

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
