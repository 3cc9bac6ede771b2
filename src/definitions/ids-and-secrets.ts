// The shapes of the service's ids and secrets: each id's prefix and pattern, API key secrets, signing secrets,
// the emulator's vault key, admin and control tokens, sandbox link tokens, and the secret shapes logs redact.
// Part of the definitions (src/definitions.ts): loads nothing.

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
