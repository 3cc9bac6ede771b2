// Signing and verification on node:crypto, synchronous. The hot path is one HMAC per secret over
// `<t>.` + the body as given (no copy, no re-encoding) and a timingSafeEqual per v1 entry.
import {createHmac, timingSafeEqual} from 'node:crypto';
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
  type VerifySignatureOptions,
} from './options.js';

function hmac(secret: string, timestampText: string, payload: string | Uint8Array): Buffer {
  // Two updates instead of one concatenation: the body is never copied.
  return createHmac('sha256', secret)
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

/**
 * Checks the `Svc-Signature` header against the raw body. Returns what matched, or throws a
 * WebhookVerificationError whose `reason` says why not. The signature is judged before the time, so
 * a clock-skew error is only ever reported for a request that really came from the sender.
 */
export function verifySignature(options: VerifySignatureOptions): VerifiedSignature {
  const payload = options.payload;
  if (!isPayload(payload)) throw payloadTypeError(payload);
  const secrets = secretsOf(options);
  const tolerance = toleranceOf(options.toleranceSeconds);
  const now = unixSeconds(options.now, 'now');
  const parsed = parseSignatureHeader(options.header);

  // Buffer's native hex decoding stops at the first non-hex character, so 32 bytes means 64 hex digits.
  const candidates = parsed.signatures;
  const decoded: Buffer[] = [];
  for (let j = 0; j < candidates.length; j++) decoded.push(Buffer.from(candidates[j]!, 'hex'));

  let secretIndex = -1;
  for (let i = 0; i < secrets.length && secretIndex < 0; i++) {
    const expected = hmac(secrets[i]!, parsed.timestampText, payload);
    for (let j = 0; j < decoded.length; j++) {
      const bytes = decoded[j]!;
      // v1 is lowercase hex by definition; uppercase digits decode to the same bytes but are not a v1.
      if (
        bytes.length === 32 &&
        timingSafeEqual(expected, bytes) &&
        candidates[j]!.toLowerCase() === candidates[j]
      ) {
        secretIndex = i;
        break;
      }
    }
  }
  if (secretIndex < 0)
    throw unmatchedError(parsed, () => mismatchError(describeSecrets(secrets), parsed.timestamp));
  if (Math.abs(now - parsed.timestamp) > tolerance) throw toleranceError(parsed.timestamp, now, tolerance);
  return {timestamp: parsed.timestamp, secretIndex};
}

/** verifySignature, then the body parsed and checked as an svc event. */
export function constructEvent(options: VerifySignatureOptions): WebhookEvent {
  verifySignature(options);
  return parseWebhookEvent(options.payload);
}
