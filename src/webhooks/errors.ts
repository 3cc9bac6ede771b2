// The one error a receiver has to catch: a stable `reason` to branch on and a message that says what to fix.

export const VERIFICATION_FAILURE_REASONS = [
  'missing_header',
  'malformed_header',
  'missing_timestamp',
  'invalid_timestamp',
  'no_signature',
  'signature_mismatch',
  'timestamp_outside_tolerance',
  'invalid_payload',
] as const;

export type VerificationFailureReason = (typeof VERIFICATION_FAILURE_REASONS)[number];

export interface WebhookVerificationErrorDetails {
  /** The header's `t`, when it could be read. */
  timestamp?: number;
  /** `now - t` in seconds for `timestamp_outside_tolerance`: positive means the timestamp is in the past. */
  ageSeconds?: number;
  toleranceSeconds?: number;
}

export class WebhookVerificationError extends Error {
  readonly reason: VerificationFailureReason;
  /** Same as `reason`, so generic error renderers that read `code` show the stable value. */
  readonly code: VerificationFailureReason;
  readonly timestamp: number | undefined;
  readonly ageSeconds: number | undefined;
  readonly toleranceSeconds: number | undefined;

  constructor(
    reason: VerificationFailureReason,
    message: string,
    details: WebhookVerificationErrorDetails = {},
    options?: {cause?: unknown},
  ) {
    super(message, options);
    this.name = 'WebhookVerificationError';
    this.reason = reason;
    this.code = reason;
    this.timestamp = details.timestamp;
    this.ageSeconds = details.ageSeconds;
    this.toleranceSeconds = details.toleranceSeconds;
  }
}

export function isWebhookVerificationError(value: unknown): value is WebhookVerificationError {
  return value instanceof WebhookVerificationError;
}

// Message builders live here so the node:crypto and the WebCrypto verifiers say exactly the same thing.
// None of them receives the secret itself, only facts about it, so no message can leak it.

const RAW_BODY_HINT =
  'Verify the raw body, before any JSON parser or re-encoding, exactly as received ' +
  '(Express: express.raw({type: "application/json", limit: "1mb"}), since deliveries can exceed its 100 kB default; fetch-style handlers: await request.text()).';

export function payloadTypeError(payload: unknown): WebhookVerificationError {
  const kind = payload === null ? 'null' : Array.isArray(payload) ? 'an array' : typeof payload;
  const parsed = typeof payload === 'object' && payload !== null && !Array.isArray(payload);
  const message = parsed
    ? `The payload is a parsed object, but the signature covers the raw bytes. ${RAW_BODY_HINT}`
    : `The payload must be the raw body as a string, Buffer or Uint8Array, not ${kind}. ${RAW_BODY_HINT}`;
  return new WebhookVerificationError('invalid_payload', message);
}

export function missingHeaderError(): WebhookVerificationError {
  return new WebhookVerificationError(
    'missing_header',
    'The Svc-Signature header is missing or empty. Pass the value of the request header `svc-signature`.',
  );
}

export function malformedHeaderError(detail: string): WebhookVerificationError {
  return new WebhookVerificationError(
    'malformed_header',
    `The Svc-Signature header is malformed: ${detail}. Expected "t=<unix seconds>,v1=<64 hex characters>".`,
  );
}

export function missingTimestampError(): WebhookVerificationError {
  return new WebhookVerificationError(
    'missing_timestamp',
    'The Svc-Signature header has no "t=" entry; the timestamp is part of what is signed.',
  );
}

export function invalidTimestampError(): WebhookVerificationError {
  return new WebhookVerificationError(
    'invalid_timestamp',
    'The Svc-Signature timestamp "t" is not a whole number of Unix seconds.',
  );
}

export function noSignatureError(v1Count: number, firstBadLength: number): WebhookVerificationError {
  const message =
    v1Count === 0
      ? 'The Svc-Signature header has no "v1=" signature (other schemes are ignored).'
      : `${v1Count === 1 ? 'The "v1=" entry is not' : `None of the ${v1Count} "v1=" entries is`} 64 lowercase hex ` +
        `characters${firstBadLength >= 0 ? ` (the first has ${firstBadLength})` : ''}, so nothing can match it.`;
  return new WebhookVerificationError('no_signature', message);
}

/** What a verifier learnt about the secrets it was given, used only to choose hints. */
export interface SecretFacts {
  count: number;
  /** Index of a secret with whitespace at either end, or -1. */
  whitespace: number;
  /** Index of a secret that looks like an API key (`svc_…`), or -1. */
  apiKey: number;
  /** Index of a secret without the `whsec_` prefix, or -1. */
  unprefixed: number;
}

export function describeSecrets(secrets: readonly string[]): SecretFacts {
  const facts: SecretFacts = {count: secrets.length, whitespace: -1, apiKey: -1, unprefixed: -1};
  for (let i = 0; i < secrets.length; i++) {
    const s = secrets[i]!;
    if (facts.whitespace < 0 && s.trim() !== s) facts.whitespace = i;
    const trimmed = s.trim();
    if (facts.apiKey < 0 && trimmed.startsWith('svc_')) facts.apiKey = i;
    else if (facts.unprefixed < 0 && !trimmed.startsWith('whsec_')) facts.unprefixed = i;
  }
  return facts;
}

function whichSecret(facts: SecretFacts, index: number): string {
  return facts.count === 1 ? 'The secret' : `Secret #${index + 1}`;
}

export function mismatchError(facts: SecretFacts, timestamp: number): WebhookVerificationError {
  const hints: string[] = [];
  if (facts.apiKey >= 0) {
    hints.push(
      `${whichSecret(facts, facts.apiKey)} starts with "svc_", so it is an API key, not a signing secret: ` +
        "use the endpoint's signing secret (whsec_…), shown once when the endpoint was created.",
    );
  }
  if (facts.whitespace >= 0) {
    hints.push(
      `${whichSecret(facts, facts.whitespace)} has whitespace at its start or end (a stray newline from a file or ` +
        'an environment variable?); the signing secret is used byte for byte, so trim it.',
    );
  }
  if (facts.apiKey < 0 && facts.unprefixed >= 0) {
    hints.push(
      `${whichSecret(facts, facts.unprefixed)} does not start with "whsec_"; signing secrets do, and the prefix ` +
        'is part of the HMAC key.',
    );
  }
  hints.push(RAW_BODY_HINT);
  const subject = facts.count === 1 ? 'the secret' : `any of the ${facts.count} secrets`;
  return new WebhookVerificationError(
    'signature_mismatch',
    `No v1 signature matches ${subject} for this body. ${hints.join(' ')}`,
    {timestamp},
  );
}

export function toleranceError(
  timestamp: number,
  nowSeconds: number,
  toleranceSeconds: number,
): WebhookVerificationError {
  const age = nowSeconds - timestamp;
  const direction =
    age > 0 ? `${age} seconds in the past` : `${-age} seconds in the future (ahead of this machine's clock)`;
  const cause =
    age > 0
      ? "Either this machine's clock is ahead of the sender's, or the request was delayed or replayed."
      : "This machine's clock is behind the sender's; sync it (NTP).";
  return new WebhookVerificationError(
    'timestamp_outside_tolerance',
    `The signature is valid but its timestamp is ${direction}, outside the tolerance of ${toleranceSeconds} seconds. ${cause}`,
    {timestamp, ageSeconds: age, toleranceSeconds},
  );
}

export function invalidEventError(detail: string, cause?: unknown): WebhookVerificationError {
  return new WebhookVerificationError(
    'invalid_payload',
    `The signature is valid but the body is not an svc event: ${detail}.`,
    {},
    cause === undefined ? undefined : {cause},
  );
}
