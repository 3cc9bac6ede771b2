// The snapshot: the emulator's whole state as one versioned JSON document (`svc emulator export`), loaded
// again by `svc emulator import` or `svc emulator start --import`, on PGlite or PostgreSQL alike. Keys are
// kept as their SHA-256 hashes; signing secrets in clear text (the vault key of the emulator that loads it
// may differ), so a snapshot file is written owner-only. Sign-in links and sessions are not kept; the orgs' own
// clocks are, as their times.
import {z} from 'zod';
import {
  ATTEMPT_TRIGGERS,
  CLOCK_MODES,
  DELIVERY_STATUSES,
  EVENT_TYPES,
  ID_PATTERNS,
  idShapeText,
  ORG_ROLES,
  SANDBOX_LINK_KINDS,
  SANDBOX_STATUSES,
  SIGNING_SECRET_PATTERN,
  SIGNING_SECRET_RULE,
} from '../definitions.js';

/** The snapshot format this version of svc writes and reads; a file of a newer format is refused. */
export const SNAPSHOT_FORMAT_VERSION = 1;
/** The key that marks a JSON document as a snapshot, holding its format version. */
export const SNAPSHOT_FORMAT_KEY = 'svc_emulator_snapshot';

// Written as ISO 8601 UTC by toISOString; read back from any ISO time with a zone.
const time = z.iso.datetime({offset: true});
const optionalTime = time.nullable();
const id = (kind: keyof typeof ID_PATTERNS) =>
  z.string().regex(ID_PATTERNS[kind], {message: `must be a ${kind} id (${idShapeText(kind)})`});
const count = z.number().int().nonnegative();

export const SnapshotOrgSchema = z.strictObject({id: id('org'), name: z.string(), created_at: time});
export const SnapshotPersonSchema = z.strictObject({
  id: id('user'),
  email: z.string(),
  created_at: time,
  last_sign_in_at: optionalTime,
  /** The org a sign-in lands in. */
  last_org_id: id('org').nullable(),
});
export const SnapshotMembershipSchema = z.strictObject({
  org_id: id('org'),
  person_id: id('user'),
  role: z.enum(ORG_ROLES),
  invited_by: id('user').nullable(),
  created_at: time,
});
/** An offer to join an org, pending until its person accepts it. */
export const SnapshotInvitationSchema = z.strictObject({
  org_id: id('org'),
  person_id: id('user'),
  invited_by: id('user').nullable(),
  created_at: time,
});
export const SnapshotApiKeySchema = z.strictObject({
  id: id('apiKey'),
  org_id: id('org'),
  name: z.string(),
  prefix: z.string(),
  secret_hash: z
    .string()
    .regex(/^[0-9a-f]{64}$/, {message: 'must be the lowercase hex SHA-256 of the secret'}),
  created_by: z.string().nullable(),
  created_at: time,
  last_used_at: optionalTime,
  expires_at: optionalTime,
  revoked_at: optionalTime,
});
export const SnapshotWebhookEndpointSchema = z.strictObject({
  id: id('webhookEndpoint'),
  org_id: id('org'),
  url: z.string(),
  events: z.array(z.enum(EVENT_TYPES)).min(1),
  description: z.string().nullable(),
  secret: z.string().regex(SIGNING_SECRET_PATTERN, {message: `must be ${SIGNING_SECRET_RULE}`}),
  created_at: time,
});
export const SnapshotRelayEndpointSchema = z.strictObject({
  org_id: id('org'),
  name: z.string(),
  endpoint_id: id('webhookEndpoint'),
  created_at: time,
});
export const SnapshotSandboxSchema = z.strictObject({
  id: id('sandbox'),
  org_id: id('org'),
  name: z.string(),
  status: z.enum(SANDBOX_STATUSES),
  desired_state: z.string(),
  last_error: z.string().nullable(),
  expires_at: optionalTime,
  created_at: time,
  updated_at: time,
});
/** A port session, desktop link or browser URL a key opened: its URL's token kept as its SHA-256 only. */
export const SnapshotSandboxLinkSchema = z.strictObject({
  id: id('sandboxLink'),
  org_id: id('org'),
  sandbox_id: id('sandbox'),
  key_id: id('apiKey'),
  kind: z.enum(SANDBOX_LINK_KINDS),
  port: z.number().int().nullable(),
  token_hash: z
    .string()
    .regex(/^[0-9a-f]{64}$/, {message: 'must be the lowercase hex SHA-256 of the link token'}),
  created_at: time,
});
export const SnapshotEventSchema = z.strictObject({
  id: id('event'),
  org_id: id('org'),
  type: z.enum(EVENT_TYPES),
  created_at: time,
  /** The exact bytes every attempt sent. */
  body: z.string(),
});
export const SnapshotDeliverySchema = z.strictObject({
  id: id('delivery'),
  org_id: id('org'),
  event_id: id('event'),
  endpoint_id: id('webhookEndpoint'),
  event_type: z.enum(EVENT_TYPES),
  status: z.enum(DELIVERY_STATUSES),
  attempts: count,
  manual_attempts: count,
  created_at: time,
  last_attempt_at: optionalTime,
  next_attempt_at: optionalTime,
  last_status_code: z.number().int().nullable(),
});
export const SnapshotAttemptSchema = z.strictObject({
  delivery_id: id('delivery'),
  attempt: z.number().int().positive(),
  started_at: time,
  duration_ms: count,
  status_code: z.number().int().nullable(),
  error: z.string().nullable(),
  response_body: z.string().nullable(),
  trigger: z.enum(ATTEMPT_TRIGGERS),
  signature_t: z.number().int().nullable(),
});

/**
 * An org's own clock (a manual-clock emulator's), kept as the org's time when the snapshot was taken: loaded again,
 * the org's clock shows it while the emulator's shows `clock.now`.
 */
export const SnapshotOrgClockSchema = z.strictObject({org_id: id('org'), now: time});

export const SnapshotSchema = z.strictObject({
  [SNAPSHOT_FORMAT_KEY]: z.literal(SNAPSHOT_FORMAT_VERSION),
  exported_at: time,
  clock: z.strictObject({mode: z.enum(CLOCK_MODES), now: time}),
  /** The orgs with a clock of their own; absent from snapshots of svc versions that kept none. */
  org_clocks: z.array(SnapshotOrgClockSchema).optional(),
  default_org_id: id('org'),
  orgs: z.array(SnapshotOrgSchema),
  persons: z.array(SnapshotPersonSchema),
  memberships: z.array(SnapshotMembershipSchema),
  invitations: z.array(SnapshotInvitationSchema),
  api_keys: z.array(SnapshotApiKeySchema),
  webhook_endpoints: z.array(SnapshotWebhookEndpointSchema),
  relay_endpoints: z.array(SnapshotRelayEndpointSchema),
  sandboxes: z.array(SnapshotSandboxSchema),
  sandbox_links: z.array(SnapshotSandboxLinkSchema),
  events: z.array(SnapshotEventSchema),
  deliveries: z.array(SnapshotDeliverySchema),
  delivery_attempts: z.array(SnapshotAttemptSchema),
});
export type Snapshot = z.infer<typeof SnapshotSchema>;

/** The snapshot's tables in the order they load (each after those it refers to). */
export const SNAPSHOT_TABLES = [
  'orgs',
  'persons',
  'memberships',
  'invitations',
  'api_keys',
  'webhook_endpoints',
  'relay_endpoints',
  'sandboxes',
  'sandbox_links',
  'events',
  'deliveries',
  'delivery_attempts',
] as const;
export type SnapshotTable = (typeof SNAPSHOT_TABLES)[number];
