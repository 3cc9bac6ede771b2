// The service's limits: how many of each thing an org may hold, the longest names and bodies, the retry
// schedule and the attempt budget, the bounds of this project's own checks and scenario runs, and the earliest
// and latest times the emulator's clock can show. Part of the definitions (src/definitions.ts): loads nothing.

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

// The clock's bounds: dates are stored as PostgreSQL timestamps and written as ISO 8601, both of which end
// with year 9999.

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
