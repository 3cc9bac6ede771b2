// Signing and verification on node:crypto, synchronous. The hot path is one HMAC per secret over
// `<t>.` + the body as given (no copy, no re-encoding) and a timingSafeEqual of its hex against each v1 entry.
import {createHmac, createSecretKey, type KeyObject, timingSafeEqual} from 'node:crypto';
import {describeSecrets, mismatchError, payloadTypeError, toleranceError} from './errors.js';
import {parseWebhookEvent, type WebhookEvent} from './event.js';
import {parseSignatureHeader, SIGNATURE_HEX_LENGTH, unmatchedError} from './header.js';
import {
  isPayload,
  type SignPayloadOptions,
  type SignRequest,
  secretsOf,
  signingSecretOf,
  toleranceOf,
  unixSeconds,
  type VerifiedSignature,
  type VerifyRequest,
  type VerifySignatureOptions,
  type WebhookSignerOptions,
  type WebhookVerifierOptions,
} from './options.js';

function hmacHex(key: string | KeyObject, timestampText: string, payload: string | Uint8Array): string {
  // Two updates instead of one concatenation: the body is never copied.
  return createHmac('sha256', key)
    .update(timestampText + '.')
    .update(payload)
    .digest('hex');
}

function signatureWith(key: string | KeyObject, request: SignRequest): string {
  if (!isPayload(request.payload)) throw payloadTypeError(request.payload);
  const t = unixSeconds(request.timestamp, 'timestamp');
  if (t < 0) throw new TypeError('`timestamp` must not be before 1970.');
  const text = String(t);
  return `t=${text},v1=${hmacHex(key, text, request.payload)}`;
}

/** The `Svc-Signature` header value for `payload`: `t=<unix seconds>,v1=<hex>`. */
export function signPayload(options: SignPayloadOptions): string {
  return signatureWith(signingSecretOf(options.secret), options);
}

/**
 * signPayload with the secret fixed once, for a sender that signs many payloads with one secret (the
 * emulator signs every attempt of an endpoint with one): the secret is checked and turned into an HMAC key
 * up front.
 */
export class WebhookSigner {
  readonly #key: KeyObject;

  constructor(options: WebhookSignerOptions) {
    this.#key = createSecretKey(Buffer.from(signingSecretOf(options.secret), 'utf8'));
  }

  sign(request: SignRequest): string {
    return signatureWith(this.#key, request);
  }
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
    // The expected signature as its 64 lowercase hex characters, compared with each candidate's bytes in
    // constant time. digest('hex') hands back a string without building a Buffer in C++ (the slowest
    // step of a plain digest()), and comparing the text itself also settles that a candidate is lowercase
    // hex: anything else (uppercase digits, other characters, multi-byte UTF-8) cannot be equal.
    const expected = Buffer.from(hmacHex(keys[i]!, parsed.timestampText, payload), 'latin1');
    for (let j = 0; j < candidates.length; j++) {
      const bytes = Buffer.from(candidates[j]!, 'utf8');
      if (bytes.length === SIGNATURE_HEX_LENGTH && timingSafeEqual(expected, bytes)) {
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
