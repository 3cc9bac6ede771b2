// Wire records of the relay behind `svc listen` on the emulator's control surface (/_emulator/relay): the
// registration a run asks for and the relay endpoint it gets, the run holding a relay as another run is told of
// it, what a run reports of each relayed attempt, and the messages of the relay stream (NDJSON, one a line). The
// emulator's relay routes check requests and answer with them; the control client parses with them.
import {z} from 'zod';
import {
  EVENT_TYPES,
  ID_PATTERNS,
  RELAY_LISTENER_ID_PATTERN,
  RELAY_LISTENER_ID_RULE,
  RELAY_NAME_PATTERN,
  RELAY_NAME_RULE,
  RESPONSE_BODY_LIMIT_BYTES,
} from '../definitions.js';
import type {Exact} from './index.js';

// ---- Requests -------------------------------------------------------------------------------------------

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
  delivery_id: z
    .string({error: 'delivery_id must be a string'})
    .max(64, {error: 'delivery_id is not a delivery id'}),
  attempt: z
    .number({error: 'attempt must be a number'})
    .int({error: 'attempt must be a whole number'})
    .min(1, {error: 'attempt must be from 1 to 100'})
    .max(100, {error: 'attempt must be from 1 to 100'}),
  status_code: z
    .number({error: 'status_code must be an HTTP status, or null when nothing answered'})
    .int({error: 'status_code must be a whole number'})
    .min(100, {error: 'status_code must be an HTTP status from 100 to 999'})
    .max(999, {error: 'status_code must be an HTTP status from 100 to 999'})
    .nullable(),
  error: z
    .string({error: 'error must be a string, or null'})
    .max(2000, {error: 'error must be at most 2000 characters'})
    .nullable(),
  duration_ms: z
    .number({error: 'duration_ms must be a number'})
    .min(0, {error: 'duration_ms must be from 0 to 3600000'})
    .max(3_600_000, {error: 'duration_ms must be from 0 to 3600000'}),
  /** The first bytes of the answer, as text (a character may take up to 4 bytes). */
  body: z
    .string({error: 'body must be a string, or null'})
    .max(RESPONSE_BODY_LIMIT_BYTES * 4, {
      error: `body must be at most ${RESPONSE_BODY_LIMIT_BYTES * 4} characters (the first ${RESPONSE_BODY_LIMIT_BYTES} bytes of the answer)`,
    })
    .nullable(),
});
export type RelayReport = Exact<z.infer<typeof RelayReportSchema>>;

// ---- Answers --------------------------------------------------------------------------------------------

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
