// Signing and verification on node:crypto, synchronous. The hot path is one HMAC per secret over
// `<t>.` + the body as given (no copy, no re-encoding) and a timingSafeEqual per v1 entry.
import {createHmac, createSecretKey, type KeyObject, timingSafeEqual} from 'node:crypto';
import {describeSecrets, mismatchError, payloadTypeError, toleranceError} from './errors.js';
import {parseWebhookEvent, type WebhookEvent} from './event.js';
import {parseSignatureHeader, unmatchedError} from './header.js';
import {
  isPayload,
  type SignPayloadOptions,
  secretsOf,
  signingSecretOf,
  toleranceOf,
  unixSeconds,
  type VerifiedSignature,
  type VerifyRequest,
  type VerifySignatureOptions,
  type WebhookVerifierOptions,
} from './options.js';

function hmac(key: string | KeyObject, timestampText: string, payload: string | Uint8Array): Buffer {
  // Two updates instead of one concatenation: the body is never copied.
  return createHmac('sha256', key)
    .update(timestampText + '.')
    .update(payload)
    .digest();
}

/** The `Svc-Signature` header value for `payload`: `t=<unix seconds>,v1=<hex>`. */
export function signPayload(options: SignPayloadOptions): string {
  const secret = signingSecretOf(options.secret);
  if (!isPayload(options.payload)) throw payloadTypeError(options.payload);
  const t = unixSeconds(options.timestamp, 'timestamp');
  if (t < 0) throw new TypeError('`timestamp` must not be before 1970.');
  const text = String(t);
  return `t=${text},v1=${hmac(secret, text, options.payload).toString('hex')}`;
}

/** `keys[i]` is `secrets[i]` ready for createHmac; the strings themselves are only read to choose hints. */
function verifyWith(
  request: VerifyRequest,
  keys: readonly (string | KeyObject)[],
  secrets: readonly string[],
  tolerance: number,
): VerifiedSignature {
  const payload = request.payload;
  if (!isPayload(payload)) throw payloadTypeError(payload);
  const now = unixSeconds(request.now, 'now');
  const parsed = parseSignatureHeader(request.header);

  const candidates = parsed.signatures;
  let secretIndex = -1;
  for (let i = 0; i < keys.length && secretIndex < 0; i++) {
    const expected = hmac(keys[i]!, parsed.timestampText, payload);
    for (let j = 0; j < candidates.length; j++) {
      const candidate = candidates[j]!;
      // Buffer's native hex decoding stops at the first non-hex character: 32 bytes means 64 hex digits.
      // v1 is lowercase by definition; uppercase digits decode to the same bytes but are not a v1. The
      // check runs once, on a match; V8 returns an all-lowercase string itself from toLowerCase(), which
      // is twice as fast as a regex scan.
      const bytes = Buffer.from(candidate, 'hex');
      if (bytes.length === 32 && timingSafeEqual(expected, bytes) && candidate.toLowerCase() === candidate) {
        secretIndex = i;
        break;
      }
    }
  }
  if (secretIndex < 0) {
    throw unmatchedError(parsed, () => mismatchError(describeSecrets(secrets), parsed.timestamp));
  }
  if (Math.abs(now - parsed.timestamp) > tolerance) throw toleranceError(parsed.timestamp, now, tolerance);
  return {timestamp: parsed.timestamp, secretIndex};
}

/**
 * Checks the `Svc-Signature` header against the raw body. Returns what matched, or throws a
 * WebhookVerificationError whose `reason` says why not. The signature is judged before the time, so
 * a clock-skew error is only ever reported for a request that really came from the sender.
 */
export function verifySignature(options: VerifySignatureOptions): VerifiedSignature {
  const secrets = secretsOf(options);
  return verifyWith(options, secrets, secrets, toleranceOf(options.toleranceSeconds));
}

/** verifySignature, then the body parsed and checked as an svc event. */
export function constructEvent(options: VerifySignatureOptions): WebhookEvent {
  verifySignature(options);
  return parseWebhookEvent(options.payload);
}

/**
 * verifySignature and constructEvent with the secrets and tolerance fixed once, for a receiver that
 * handles many deliveries: the secrets are checked and turned into HMAC keys up front.
 */
export class WebhookVerifier {
  readonly #secrets: readonly string[];
  readonly #keys: readonly KeyObject[];
  readonly #tolerance: number;

  constructor(options: WebhookVerifierOptions) {
    this.#secrets = [...secretsOf(options)];
    this.#keys = this.#secrets.map((secret) => createSecretKey(Buffer.from(secret, 'utf8')));
    this.#tolerance = toleranceOf(options.toleranceSeconds);
  }

  verify(request: VerifyRequest): VerifiedSignature {
    return verifyWith(request, this.#keys, this.#secrets, this.#tolerance);
  }

  constructEvent(request: VerifyRequest): WebhookEvent {
    verifyWith(request, this.#keys, this.#secrets, this.#tolerance);
    return parseWebhookEvent(request.payload);
  }
}
