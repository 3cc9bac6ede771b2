// The service's definitions, each in one place: identifier shapes, allowed values, limits, error codes.
// The zod schemas, the emulator, the client, the receiver library and the CLI import them from here. This
// module loads nothing (no zod, no node: modules), so the receiver library and the CLI's start-up stay lean.

// ---- Identifiers and secrets ----------------------------------------------------------------------------

/** Every public id is a prefix, an underscore and 24 base62 characters. */
export const ID_BODY_LENGTH = 24;
export const ID_PREFIXES = {
  org: 'org',
  apiKey: 'key',
  webhookEndpoint: 'we',
  event: 'evt',
  delivery: 'dlv',
  sandbox: 'sbx',
  sandboxLink: 'lnk',
  user: 'usr',
} as const;
export type IdKind = keyof typeof ID_PREFIXES;
export type IdPrefix = (typeof ID_PREFIXES)[IdKind];

const idShape = (prefix: IdPrefix) => new RegExp(`^${prefix}_[0-9A-Za-z]{${ID_BODY_LENGTH}}$`);
/** An id's shape as user texts state it: `we_ followed by 24 letters and digits`. */
export function idShapeText(kind: IdKind, joiner = 'followed by'): string {
  return `${ID_PREFIXES[kind]}_ ${joiner} ${ID_BODY_LENGTH} letters and digits`;
}

/** The exact shape of each kind of id: a path segment that does not match names no record. */
export const ID_PATTERNS: Readonly<Record<IdKind, RegExp>> = /* @__PURE__ */ Object.freeze({
  org: /* @__PURE__ */ idShape('org'),
  apiKey: /* @__PURE__ */ idShape('key'),
  webhookEndpoint: /* @__PURE__ */ idShape('we'),
  event: /* @__PURE__ */ idShape('evt'),
  delivery: /* @__PURE__ */ idShape('dlv'),
  sandbox: /* @__PURE__ */ idShape('sbx'),
  sandboxLink: /* @__PURE__ */ idShape('lnk'),
  user: /* @__PURE__ */ idShape('usr'),
});
/** Any id of the service. */
export const ANY_ID_PATTERN = /* @__PURE__ */ new RegExp(
  `^(${Object.values(ID_PREFIXES).join('|')})_[0-9A-Za-z]{${ID_BODY_LENGTH}}$`,
);

/**
 * An id as an event body may carry it, for receivers: the prefix and any number of base62 characters, so
 * that a receiver keeps accepting events should ids ever grow.
 */
export const EVENT_BODY_ID_PATTERNS = /* @__PURE__ */ Object.freeze({
  event: /* @__PURE__ */ new RegExp(`^${ID_PREFIXES.event}_[0-9A-Za-z]+$`),
  org: /* @__PURE__ */ new RegExp(`^${ID_PREFIXES.org}_[0-9A-Za-z]+$`),
});

export function isId(kind: IdKind, value: unknown): value is string {
  return typeof value === 'string' && ID_PATTERNS[kind].test(value);
}

/** An API key secret: `svc_` and 40 base62 characters; only its SHA-256 is stored. */
export const API_KEY_SECRET_PREFIX = 'svc_';
export const API_KEY_SECRET_BODY_LENGTH = 40;
export const API_KEY_SECRET_PATTERN = /^svc_[0-9A-Za-z]{40}$/;
/** The part of a key secret shown in lists: its first 8 characters. */
export const API_KEY_PREFIX_LENGTH = 8;
/** A signing secret: `whsec_` and the base64 of 32 random bytes. */
export const SIGNING_SECRET_PREFIX = 'whsec_';
export const SIGNING_SECRET_BYTES = 32;
/** A signing secret exactly: `whsec_` and the base64 (with its padding) of SIGNING_SECRET_BYTES bytes. */
export const SIGNING_SECRET_PATTERN = /^whsec_[A-Za-z0-9+/]{43}=$/;
/** The emulator's vault key (SVC_EMULATOR_VAULT_KEY, <data-dir>/vault.key), which encrypts stored signing secrets. */
export const VAULT_KEY_BYTES = 32;
/** A signing secret's shape as user texts state it. */
export const SIGNING_SECRET_RULE = `${SIGNING_SECRET_PREFIX} and the base64 of ${SIGNING_SECRET_BYTES} bytes (${
  Math.ceil(SIGNING_SECRET_BYTES / 3) * 4
} characters, ending in =)`;

// ---- Allowed values -------------------------------------------------------------------------------------

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

/** The moves of a sandbox the emulator can make; each may emit an event. */
/** The units of a duration (`90s`, `10m`, `3h`, `31d`, `1h30m`) for clocks and sandbox expiry. */
export const DURATION_UNITS = ['ms', 's', 'm', 'h', 'd'] as const;
export type DurationUnit = (typeof DURATION_UNITS)[number];
/** A duration as the emulator reads it: whole numbers with units, one or two parts (`90s`, `1h30m`). */
export type Duration = `${number}${DurationUnit}` | `${number}${DurationUnit}${number}${DurationUnit}`;

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

// ---- Limits ---------------------------------------------------------------------------------------------

/** An org may hold at most this many active keys; revoked and expired ones do not count. */
export const MAX_ACTIVE_KEYS_PER_ORG = 25;
/** An org may register at most this many webhook endpoints. */
export const MAX_ENDPOINTS_PER_ORG = 10;
/**
 * Relay endpoints (`svc listen`, emulator only) an org may hold besides its webhook endpoints: they do not
 * take one of the MAX_ENDPOINTS_PER_ORG places, so a suite testing that limit sees the service's behaviour.
 */
export const MAX_RELAYS_PER_ORG = 10;
/** A relay endpoint's name (`svc listen --name`): what people call it, and what its lines show. */
export const RELAY_NAME_PATTERN = /^[a-z0-9][a-z0-9._-]{0,62}$/;
export const RELAY_NAME_RULE = '1-63 characters of a-z, 0-9, ., _ or -';
/**
 * A checkpoint of one org (`svc emulator orgs checkpoint ORG NAME`): its name, unique in the org, and how many an
 * org keeps (each holds a copy of every row of the org: delete one to take another).
 */
export const CHECKPOINT_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
export const CHECKPOINT_NAME_RULE =
  '1-64 characters of A-Z, a-z, 0-9, ., _ or -, starting with a letter or digit';
export const MAX_CHECKPOINTS_PER_ORG = 50;

/** The id a `svc listen` run names itself by while it holds a relay. */
export const RELAY_LISTENER_ID_PATTERN = /^[A-Za-z0-9_-]{8,64}$/;
export const RELAY_LISTENER_ID_RULE = '8-64 of A-Z, a-z, 0-9, _ or -';
/** A machine's name as the run holding a relay gives it; one of another shape is left out. */
export const RELAY_HOST_NAME_PATTERN = /^[A-Za-z0-9._-]{1,253}$/;
/**
 * Which time a delivery's `Svc-Signature` carries as `t`: the real time of the attempt (receivers on a real
 * clock accept it however far a manual emulator clock has moved), or the emulator's clock (for receivers whose
 * tests share that clock).
 */
export const SIGNATURE_CLOCKS = ['real', 'emulator'] as const;
export type SignatureClock = (typeof SIGNATURE_CLOCKS)[number];
/** An endpoint URL is at most this many characters. */
export const MAX_ENDPOINT_URL_LENGTH = 2048;
/**
 * Domains no public host can have (special-use names: RFC 6761 test, localhost, invalid, example; RFC 6762
 * local; RFC 7686 onion; RFC 8375 home.arpa; RFC 9476 alt; ICANN's internal): an endpoint host in one of them
 * is refused. The second-level example.com, .net and .org are real, resolvable names and stay allowed.
 */
export const SPECIAL_USE_DOMAINS = /* @__PURE__ */ Object.freeze([
  'test',
  'localhost',
  'invalid',
  'example',
  'local',
  'onion',
  'home.arpa',
  'alt',
  'internal',
] as const);
/** An endpoint description is at most this many characters. */
export const MAX_ENDPOINT_DESCRIPTION_LENGTH = 200;
/** The deliveries list returns at most this many, newest first. */
export const MAX_DELIVERIES_LISTED = 100;

/**
 * Failed authentications one client address may make within a window (by the emulator clock) before it is
 * answered 429 rate_limited, with Retry-After.
 */
export const AUTH_FAILURE_LIMIT = {maxFailures: 20, windowMs: 60_000} as const;
/** Events and deliveries are kept this long. */
export const RETENTION_MS = 30 * 86_400_000;
/** An attempt succeeds only on a 2xx answer within this time. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** An attempt succeeds only on a 2xx answer: a redirect is an answer, never followed. */
export function isSuccessStatus(status: number): boolean {
  return status >= 200 && status <= 299;
}
/** Waits after failed attempts 1..8 (30 s, 2 min, 10 min, 30 min, 1 h, 3 h, 6 h, 12 h); the ninth failure is final. */
export const RETRY_WAITS_MS: readonly number[] = /* @__PURE__ */ Object.freeze([
  30_000, 120_000, 600_000, 1_800_000, 3_600_000, 10_800_000, 21_600_000, 43_200_000,
]);
/** Attempts per delivery, the first included. */
export const MAX_DELIVERY_ATTEMPTS = RETRY_WAITS_MS.length + 1;
/** How long one wait for a delivery (`waitForDelivery`) may hold its request at most, and by default. */
export const MAX_DELIVERY_WAIT_MS = 120_000;
export const DEFAULT_DELIVERY_WAIT_MS = 30_000;
/** The first retry's wait in seconds, as user texts state it. */
export const FIRST_RETRY_S = (RETRY_WAITS_MS[0] as number) / 1000;
/** A receiver rejects signature timestamps further than this from its clock, in either direction. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;
/** Largest request body the receiver integrations read before answering 413 (events are a few kB). */
export const RECEIVER_MAX_BODY_BYTES = 1_048_576;
/**
 * The large legitimate delivery `svc webhooks test-receiver` sends: past the 100 kB that common body parsers
 * (Express, body-parser) accept by default, within RECEIVER_MAX_BODY_BYTES.
 */
export const RECEIVER_CHECK_LARGE_BODY_BYTES = 256 * 1024;
/** Bytes of a receiver's answer kept per attempt (emulator and relay). */
export const RESPONSE_BODY_LIMIT_BYTES = 4096;

// Limits of this project's own surfaces (the service leaves them open).

/** Values one triggered event may be shaped with (`svc trigger --set`, the trigger route's `set`). */
export const MAX_EVENT_SETS = 50;
/** Largest body of a shaped event: events are a few kB; a shaped one stays far below what receivers read. */
export const MAX_SHAPED_EVENT_BYTES = 64 * 1024;

/**
 * How many failed deliveries one bulk resend (`svc emulator deliveries resend --failed --limit`, the control
 * route's `limit`) resends at most: this many when none is given, and never more than `max`.
 */
export const RESEND_FAILED_LIMIT = {default: 100, max: 1000} as const;
/**
 * One request of a bulk resend makes at most `deliveries` resends and starts none after `ms` of real time, then
 * answers with where to go on (`next`): each answer comes within seconds, whatever the receiver does, and a caller
 * shows progress between them. Each resend may take up to the delivery timeout on its own.
 */
export const RESEND_FAILED_PAGE = {deliveries: 50, ms: 5_000} as const;

/**
 * `svc webhooks test-receiver --race [N]`: one event sent as N attempts at once (2 when N is not given, at most
 * `maxAttempts`), in `rounds` rounds. The narrowest gap an asynchronous check-then-insert can leave (one turn of
 * the event loop) is hit in about one round of five on loopback; one in twenty would still escape all the
 * rounds only with a chance of 0.95^100, about 0.6 %. A real gap (a database round trip) is hit nearly every round.
 */
export const RACE_CHECK = {defaultAttempts: 2, maxAttempts: 10, rounds: 100} as const;
/**
 * `svc webhooks test-receiver --burst RATE[:DURATION]`: the fastest rate (deliveries a second) and the longest
 * run it sends, and the run when none is given.
 */
export const BURST_CHECK = {maxRatePerSecond: 100, maxDurationMs: 60_000, defaultDurationMs: 10_000} as const;
/**
 * A burst whose p99 answer time reaches this share of the attempt budget (DELIVERY_TIMEOUT_MS) is a "slow
 * ack": a burst twice as large, or a slower database, would push attempts past the budget.
 */
export const SLOW_ACK_BUDGET_SHARE = 0.5;

/**
 * `svc scenario run`: how an attempt named in an `attempt` expectation went. `2xx` and `non-2xx` were answered;
 * `timeout` was cut at the attempt budget (DELIVERY_TIMEOUT_MS); `no-answer` never reached an answer otherwise
 * (refused, reset, a redirect refused).
 */
export const SCENARIO_ATTEMPT_OUTCOMES = ['2xx', 'non-2xx', 'timeout', 'no-answer'] as const;
export type ScenarioAttemptOutcome = (typeof SCENARIO_ATTEMPT_OUTCOMES)[number];
/**
 * `svc scenario run`: how long a receiver the scenario starts has to accept connections on its port, the largest
 * scenario file read, and how many files one run takes.
 */
export const SCENARIO_LIMITS = {receiverStartMs: 15_000, fileBytes: 1024 * 1024, files: 1000} as const;

/** The port an emulator listens on when none is given (`svc emulator start`, `startEmulator`). */
export const EMULATOR_DEFAULT_PORT = 4010;

/** The ports a port session may forward to. */
export const MIN_SANDBOX_PORT = 1;
export const MAX_SANDBOX_PORT = 65_535;
/** How long a port session waits for the app behind it to start answering before it answers 504. */
export const PORT_SESSION_ANSWER_TIMEOUT_MS = 30_000;
/** Random bytes of the token in a sandbox link's URL (the URL is the only credential it needs). */
export const SANDBOX_LINK_TOKEN_BYTES = 32;

/** Characters of a link token as its URL carries it (the unpadded base64url of its bytes). */
export const SANDBOX_LINK_TOKEN_LENGTH = /* @__PURE__ */ Math.ceil((SANDBOX_LINK_TOKEN_BYTES * 4) / 3);

/** How an emulator's admin token (its control surface's credential, in emulator.json) begins. */
export const ADMIN_TOKEN_PREFIX = 'adm_';
/** Random bytes of an admin token, written after the prefix as unpadded base64url. */
export const ADMIN_TOKEN_BYTES = 24;
/**
 * How a control token the emulator issues begins: a credential of its control surface that reaches one org only
 * (`ctl_org_….<mac>`), or that only makes orgs, each with a token of its own (`ctl_new_orgs.<mac>`).
 */
export const CONTROL_TOKEN_PREFIX = 'ctl_';
/** What a control token reaches: one org, or nothing but making orgs. */
export const CONTROL_TOKEN_SCOPES = ['org', 'new_orgs'] as const;
export type ControlTokenScope = (typeof CONTROL_TOKEN_SCOPES)[number];

/**
 * Anything in a text shaped like a secret of the service: a key secret, a signing secret (plain or
 * percent-encoded, whole or any run of base64 after `whsec_`), an emulator's admin token (any run after `adm_`)
 * and the control tokens it issues (after `ctl_`), a link token. Logs write `[redacted]` in its place.
 */
export const SECRET_SHAPES: readonly RegExp[] = /* @__PURE__ */ Object.freeze([
  /* @__PURE__ */ new RegExp(`${ADMIN_TOKEN_PREFIX}[A-Za-z0-9_%-]+`, 'g'),
  /* @__PURE__ */ new RegExp(`${CONTROL_TOKEN_PREFIX}[A-Za-z0-9_.%-]+`, 'g'),
  /* @__PURE__ */ new RegExp(`${API_KEY_SECRET_PREFIX}[0-9A-Za-z]{${API_KEY_SECRET_BODY_LENGTH}}`, 'g'),
  /* @__PURE__ */ new RegExp(`${SIGNING_SECRET_PREFIX}(?:[A-Za-z0-9+/]|%2[BbFf]){43}(?:=|%3[Dd])?`, 'g'),
  /* @__PURE__ */ new RegExp(`${SIGNING_SECRET_PREFIX}[A-Za-z0-9+=%_-]+`, 'g'),
  /* @__PURE__ */ new RegExp(`[A-Za-z0-9_-]{${SANDBOX_LINK_TOKEN_LENGTH},}`, 'g'),
]);

/** A text with every secret-shaped part replaced by `[redacted]`. */
export function redactSecrets(text: string): string {
  let out = text;
  for (const shape of SECRET_SHAPES) out = out.replace(shape, '[redacted]');
  return out;
}

/** Longest key name, org name, sandbox name and similar short text. */
export const MAX_NAME_LENGTH = 100;
/** Longest `last_error` a sandbox may carry (a move, a trigger, a shaped event, a state file). */
export const MAX_LAST_ERROR_LENGTH = 1000;
/** Longest email address (RFC 5321). */
export const MAX_EMAIL_LENGTH = 320;
/** Longest API address a client accepts. */
export const MAX_API_URL_LENGTH = 2048;
/**
 * A state file (seed or snapshot) nests at most this deep (a snapshot needs 4 levels, a seed 6): deeper is no
 * state svc writes, and a YAML alias that refers to itself is endless.
 */
export const MAX_STATE_FILE_DEPTH = 16;
/**
 * The longest string a state file may hold: an event body, which no receiver reads past RECEIVER_MAX_BODY_BYTES.
 * Every shorter field has its own limit besides.
 */
export const MAX_STATE_FILE_STRING_LENGTH = RECEIVER_MAX_BODY_BYTES;
/** A sign-in link from the account page's mailbox works once, within this time. */
export const SIGN_IN_LINK_TTL_MS = 15 * 60_000;
/** An account page session ends this long after sign-in. */
export const ACCOUNT_SESSION_TTL_MS = 12 * 3_600_000;
/** Form posts to the account page are at most this many bytes. */
export const MAX_ACCOUNT_FORM_BYTES = 16 * 1024;

// ---- Text -----------------------------------------------------------------------------------------------

// One policy for text that comes from outside (names, emails, descriptions, error messages, receivers' answers,
// event bodies): what input refuses, and how every surface shows what it holds.

/** Short text (names, addresses, descriptions) refuses every control character: C0, DEL and C1 (U+0080-U+009F). */
export const CONTROL_CHARACTER = /\p{Cc}/u;
/** Free text (an error message) may hold tabs and line breaks, and no other control character. */
export const LINE_CONTROL_CHARACTER = /(?![\t\n\r])\p{Cc}/u;
/**
 * Characters that reorder or hide the text around them: format characters (bidi overrides and isolates, zero-width
 * spaces and joiners, the BOM, tag characters), line and paragraph separators and lone surrogates. Names,
 * emails and descriptions refuse them; an unterminated U+202E would reverse the rest of a row wherever it is shown.
 */
export const INVISIBLE_CHARACTER = /[\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;

/** The rule a text from outside keeps: a short text (a name) or free text (`multiline`: an error message). */
export interface TextRule {
  max: number;
  /** Tabs and line breaks are allowed (longer free text such as an error message). */
  multiline?: boolean;
}

/**
 * Why a (trimmed, non-empty) text breaks its rule, as the end of a sentence about its field, or undefined when it
 * keeps it: the one rule of every input that takes text (the control surface, the account page's forms, a
 * triggered event's shaped values).
 */
export function textProblem(text: string, rule: TextRule): string | undefined {
  if ((rule.multiline ? LINE_CONTROL_CHARACTER : CONTROL_CHARACTER).test(text)) {
    return 'must not contain control characters';
  }
  // Free text keeps them (it is shown escaped); a name that reorders or hides part of itself is refused.
  if (!rule.multiline && INVISIBLE_CHARACTER.test(text)) {
    return 'must not contain invisible formatting characters (bidi controls such as U+202E, zero-width characters)';
  }
  if (text.length > rule.max) return `must be at most ${rule.max} characters`;
  return undefined;
}

const DISPLAY_UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;

const escapeCodePoint = (ch: string): string => {
  const cp = ch.codePointAt(0) as number;
  const hex = cp.toString(16).padStart(4, '0');
  return cp > 0xffff ? `\\u{${hex}}` : `\\u${hex}`;
};

/**
 * Text from outside as shown to a person (terminal, TUI, log, page) or an agent: every control and invisible
 * character is written out as `\uXXXX`, so none can move a cursor, retitle a terminal, reach a clipboard or
 * reorder a row. On one line, tabs and line breaks become spaces; `multiline` keeps tabs and line feeds.
 */
export function displayText(text: string, options: {multiline?: boolean} = {}): string {
  const source = options.multiline ? text.replace(/\r\n/g, '\n') : text;
  return source.replace(DISPLAY_UNSAFE, (ch) => {
    if (ch === '\n' || ch === '\t') return options.multiline ? ch : ' ';
    if (ch === '\r' && !options.multiline) return ' ';
    return escapeCodePoint(ch);
  });
}

/**
 * JSON text as svc writes it for `--json`: every control and invisible character (C1 controls, DEL, bidi
 * overrides, zero-width and tag characters) written as `\uXXXX` (astral ones as their surrogate pair), so a
 * terminal shown the JSON acts on none of them. Parsed, it is the same value. Tabs and line breaks outside strings
 * are the JSON's own whitespace (inside strings JSON.stringify escapes them) and stay.
 */
export function jsonText(value: unknown, space?: number): string {
  const text = JSON.stringify(value, null, space) ?? 'null';
  return text.replace(DISPLAY_UNSAFE, (ch) => {
    if (ch === '\n' || ch === '\t' || ch === '\r') return ch;
    let out = '';
    for (let i = 0; i < ch.length; i++) out += `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`;
    return out;
  });
}

/**
 * When `POST /v1/webhooks` was deprecated, as its `Deprecation` header carries it (RFC 9745: `@` and Unix
 * seconds). The service names no date; this one is fixed, so the header never changes from one answer to the next.
 */
export const WEBHOOK_CREATE_DEPRECATED_AT_SECONDS = 1_735_689_600; // 2025-01-01T00:00:00Z
/** The `Deprecation` header of `POST /v1/webhooks`. */
export const WEBHOOK_CREATE_DEPRECATION = `@${WEBHOOK_CREATE_DEPRECATED_AT_SECONDS}`;
/** RFC 9745's form of a `Deprecation` value: `@` and a whole number of Unix seconds. */
export const DEPRECATION_HEADER_PATTERN = /^@-?[0-9]+$/;

// ---- Time -----------------------------------------------------------------------------------------------

// Dates are stored as PostgreSQL timestamps and written as ISO 8601, both of which end with year 9999.

/** The earliest time the emulator's clock can show: the Unix epoch. */
export const EARLIEST_CLOCK_MS = 0;
/**
 * The latest time the emulator's clock can show, 9998-12-31T00:00:00Z: a year short of the last storable
 * date, so every date derived from the clock (a 365-day key expiry, a retry, the next step of a sandbox)
 * still fits.
 */
export const LATEST_CLOCK_MS = 253_370_678_400_000;
/** The last date anything is stored with, 9999-12-31T23:59:59.999Z. */
export const LATEST_DATE_MS = 253_402_300_799_999;

// ---- Errors ---------------------------------------------------------------------------------------------

/** The error codes of `{"error": {"code", "message"}}` bodies and the HTTP status each goes with. */
export const ERROR_STATUS = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  /** A wait (for a delivery) that ran out of time before what it waited for was recorded. */
  timeout: 408,
  payload_too_large: 413,
  /** A request addressed to a name the emulator does not answer to (DNS rebinding). */
  misdirected_request: 421,
  rate_limited: 429,
  internal: 500,
  bad_gateway: 502,
  vault_unavailable: 503,
  /** A port session's app did not answer in time. */
  gateway_timeout: 504,
} as const;
export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = /* @__PURE__ */ Object.keys(ERROR_STATUS) as ErrorCode[];

/**
 * Every code a /v1 answer can carry: those the operations name one by one, and those any request may meet
 * whatever its operation (a method the path does not answer, a name the server does not answer to, a request
 * that could not be read, the last-resort 500). The OpenAPI document names them all;
 * test/emulator/openapi-fuzz.test.ts holds the emulator to it.
 */
export const V1_ERROR_CODES = [
  'invalid_request',
  'unauthorized',
  'forbidden',
  'not_found',
  'method_not_allowed',
  'misdirected_request',
  'rate_limited',
  'internal',
  'vault_unavailable',
] as const satisfies readonly ErrorCode[];

/**
 * Why one field of an `invalid_request` was refused, when a caller acts on the reason rather than showing it:
 * `local_url` is an endpoint URL on this machine (plain http://, localhost, a non-public address), which has two
 * ways forward (relay to it with `svc listen`, or let the emulator post to it).
 */
export const PROBLEM_CODES = ['local_url'] as const;
export type ProblemCode = (typeof PROBLEM_CODES)[number];

/**
 * Where a `local_url` points, by the emulator's address policy, which decides the way forward: this machine
 * (localhost, a loopback or unspecified address), another host of a local network (a private address, a single
 * label, a name that resolves to one), or a public host over plain http.
 */
/** The names of this machine as URLs write them: plain http is allowed to them, and every server here shares them. */
export const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'] as const;

/** True for the hosts where plain http never leaves the machine. */
export function isLoopbackHost(hostname: string): boolean {
  return (LOOPBACK_NAMES as readonly string[]).includes(hostname.toLowerCase());
}

export const LOCAL_URL_KINDS = ['this_machine', 'local_network', 'plain_http'] as const;
export type LocalUrlKind = (typeof LOCAL_URL_KINDS)[number];
