// The values the service allows: event types and the event body, key expiries, the states of keys, deliveries,
// sandboxes and links, what makes an attempt, the emulator's clocks, durations, sandbox moves, org roles, and
// the names of the headers a delivery and a deprecated route carry. Part of the definitions (src/definitions.ts):
// loads nothing.

/** The event types an endpoint can subscribe to. */
export const EVENT_TYPES = ['sandbox.ready', 'sandbox.stopped', 'sandbox.error', 'sandbox.expired'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * The body of every event a delivery carries, as a plain type: the receiver library hands it out without
 * depending on the schema library. `EventSchema` (src/schemas) is checked at compile time to parse exactly this.
 */
export interface SvcEvent {
  id: string;
  type: EventType;
  created_at: string;
  org_id: string;
  data: {sandbox: SvcEventSandbox};
}
export interface SvcEventSandbox {
  id: string;
  name: string;
  status: string;
  desired_state: string;
  last_error?: string | undefined;
  expires_at?: string | undefined;
}

/** Key expiry choices at creation, in days, or never. */
export const KEY_EXPIRY_CHOICES = ['30', '90', '365', 'never'] as const;
export type KeyExpiryChoice = (typeof KEY_EXPIRY_CHOICES)[number];
/** The expiry a new key gets when none is chosen (the account page's form, `svc emulator keys create`): keys should expire. */
export const DEFAULT_KEY_EXPIRY: KeyExpiryChoice = '90';

/** The states of an API key. */
export const API_KEY_STATUSES = ['active', 'revoked', 'expired'] as const;
export type ApiKeyStatus = (typeof API_KEY_STATUSES)[number];

/** The states of a delivery: pending until a 2xx answer (succeeded) or the last failed attempt (failed). */
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/**
 * What made an attempt: the retry schedule, a person asking for a resend, or the emulator's delivery chaos (an
 * event delivered twice, or a first attempt held back or delayed).
 */
export const ATTEMPT_TRIGGERS = ['scheduled', 'manual', 'chaos'] as const;
export type AttemptTrigger = (typeof ATTEMPT_TRIGGERS)[number];

/** Where an endpoint's delivery chaos comes from: its own settings, the emulator's `--chaos`, or none. */
export const ENDPOINT_CHAOS_SOURCES = ['endpoint', 'emulator', 'none'] as const;
export type EndpointChaosSource = (typeof ENDPOINT_CHAOS_SOURCES)[number];

/**
 * The emulator's clock: real time, time that moves only when told (`--clock manual`), or time that runs N times as
 * fast as real time (`--clock scaled:N`).
 */
export const CLOCK_MODES = ['real', 'manual', 'scaled'] as const;
export type ClockMode = (typeof CLOCK_MODES)[number];
/** A scaled clock's factor: virtual time runs this many times as fast as real time (`scaled:60`), within these bounds. */
export const CLOCK_SCALE = {min: 1, max: 100_000} as const;
/** How the emulator's clock is chosen (`--clock`, startEmulator's `clock`): `real`, `manual` or `scaled:N`. */
export type ClockSetting = 'real' | 'manual' | `scaled:${number}`;
export const CLOCK_SETTING_RULE = `real, manual or scaled:N (N from ${CLOCK_SCALE.min} to ${CLOCK_SCALE.max}, e.g. scaled:60)`;

/** The clock a setting names, with a scaled clock's factor; undefined when it names none (CLOCK_SETTING_RULE). */
export function parseClockSetting(
  text: string,
): {mode: 'real' | 'manual'} | {mode: 'scaled'; scale: number} | undefined {
  if (text === 'real' || text === 'manual') return {mode: text};
  const scaled = /^scaled:([0-9]+(?:\.[0-9]+)?)$/.exec(text);
  const scale = scaled ? Number(scaled[1]) : Number.NaN;
  return scale >= CLOCK_SCALE.min && scale <= CLOCK_SCALE.max ? {mode: 'scaled', scale} : undefined;
}

/** Sandbox statuses the emulator models (the service names running, stopped, error and a standby state). */
export const SANDBOX_STATUSES = ['running', 'stopped', 'error', 'standby', 'deleting'] as const;
export type SandboxStatus = (typeof SANDBOX_STATUSES)[number];
/** The status of the sandbox each event reports: the state the event is news of. */
export const EVENT_SANDBOX_STATUS: Readonly<Record<EventType, SandboxStatus>> = /* @__PURE__ */ Object.freeze(
  {
    'sandbox.ready': 'running',
    'sandbox.stopped': 'stopped',
    'sandbox.error': 'error',
    'sandbox.expired': 'deleting',
  },
);

/** The units of a duration (`90s`, `10m`, `3h`, `31d`, `1h30m`) for clocks and sandbox expiry. */
export const DURATION_UNITS = ['ms', 's', 'm', 'h', 'd'] as const;
export type DurationUnit = (typeof DURATION_UNITS)[number];
/** A duration as the emulator reads it: whole numbers with units, one or two parts (`90s`, `1h30m`). */
export type Duration = `${number}${DurationUnit}` | `${number}${DurationUnit}${number}${DurationUnit}`;

/** The moves of a sandbox the emulator can make; each may emit an event. */
export const SANDBOX_ACTIONS = [
  'resume',
  'fork',
  'stop',
  'quota-exhausted',
  'disk-limit',
  'crash',
  'fail',
  'standby',
  'wake',
  'expire',
] as const;
export type SandboxAction = (typeof SANDBOX_ACTIONS)[number];
/** The moves a person or script may ask for; `expire` happens only when `expires_at` passes. */
export const SANDBOX_REQUESTABLE_ACTIONS = /* @__PURE__ */ SANDBOX_ACTIONS.filter(
  (a): a is Exclude<SandboxAction, 'expire'> => a !== 'expire',
);

/**
 * What a key can open onto a sandbox: a port session (HTTP to one of its ports), a desktop link and a browser
 * URL. Each stops working the moment the key that made it is revoked or expires.
 */
export const SANDBOX_LINK_KINDS = ['port', 'desktop', 'browser'] as const;
export type SandboxLinkKind = (typeof SANDBOX_LINK_KINDS)[number];
/** What people call each kind, one and several. */
export const SANDBOX_LINK_NOUNS: Readonly<Record<SandboxLinkKind, readonly [string, string]>> =
  /* @__PURE__ */ Object.freeze({
    port: ['port session', 'port sessions'],
    desktop: ['desktop link', 'desktop links'],
    browser: ['browser URL', 'browser URLs'],
  });

/** A link works while `active`; `revoked`: its key was revoked or expired; `sandbox_stopped`: its sandbox is not running. */
export const SANDBOX_LINK_STATUSES = ['active', 'revoked', 'sandbox_stopped'] as const;
export type SandboxLinkStatus = (typeof SANDBOX_LINK_STATUSES)[number];

/** The roles of a person in an org. */
export const ORG_ROLES = ['owner', 'admin'] as const;
export type OrgRole = (typeof ORG_ROLES)[number];

/** The headers of every delivery request, by what they carry (names as sent, lowercase on the wire). */
export const DELIVERY_HEADERS = {
  signature: 'Svc-Signature',
  eventId: 'Svc-Event-Id',
  eventType: 'Svc-Event-Type',
  deliveryId: 'Svc-Delivery-Id',
  attempt: 'Svc-Delivery-Attempt',
} as const;

/**
 * When `POST /v1/webhooks` was deprecated, as its `Deprecation` header carries it (RFC 9745: `@` and Unix
 * seconds). The service names no date; this one is fixed, so the header never changes from one answer to the next.
 */
export const WEBHOOK_CREATE_DEPRECATED_AT_SECONDS = 1_735_689_600; // 2025-01-01T00:00:00Z
/** The `Deprecation` header of `POST /v1/webhooks`. */
export const WEBHOOK_CREATE_DEPRECATION = `@${WEBHOOK_CREATE_DEPRECATED_AT_SECONDS}`;
/** RFC 9745's form of a `Deprecation` value: `@` and a whole number of Unix seconds. */
export const DEPRECATION_HEADER_PATTERN = /^@-?[0-9]+$/;
