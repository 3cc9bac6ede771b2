// The error codes of every answer that is not a success and the HTTP status each goes with, the reasons a caller
// may act on, and where an endpoint URL on this machine points. Part of the definitions (src/definitions.ts):
// loads nothing.

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

/** The names of this machine as URLs write them: plain http is allowed to them, and every server here shares them. */
export const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'] as const;

/** True for the hosts where plain http never leaves the machine. */
export function isLoopbackHost(hostname: string): boolean {
  return (LOOPBACK_NAMES as readonly string[]).includes(hostname.toLowerCase());
}

/**
 * Where a `local_url` points, by the emulator's address policy, which decides the way forward: this machine
 * (localhost, a loopback or unspecified address), another host of a local network (a private address, a single
 * label, a name that resolves to one), or a public host over plain http.
 */
export const LOCAL_URL_KINDS = ['this_machine', 'local_network', 'plain_http'] as const;
export type LocalUrlKind = (typeof LOCAL_URL_KINDS)[number];
