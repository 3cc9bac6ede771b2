// The same signing and verification on WebCrypto, for runtimes without node:crypto (Cloudflare Workers,
// Vercel Edge, Deno, browsers). It must not import node:* so that edge bundles stay clean.
import {describeSecrets, mismatchError, payloadTypeError, toleranceError} from './errors.js';
import {parseWebhookEvent, type WebhookEvent} from './event.js';
import {decodeSignatureHex, parseSignatureHeader, unmatchedError} from './header.js';
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

const encoder = new TextEncoder();
const HEX = '0123456789abcdef';

function subtleCrypto(): SubtleCrypto {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) {
    throw new Error(
      'WebCrypto (globalThis.crypto.subtle) is not available in this runtime; use verifySignature.',
    );
  }
  return subtle;
}

function signedMessage(timestampText: string, payload: string | Uint8Array): Uint8Array {
  if (typeof payload === 'string') return encoder.encode(timestampText + '.' + payload);
  const prefix = encoder.encode(timestampText + '.');
  const message = new Uint8Array(prefix.length + payload.length);
  message.set(prefix, 0);
  message.set(payload, prefix.length);
  return message;
}

function importKey(subtle: SubtleCrypto, secret: string): Promise<CryptoKey> {
  return subtle.importKey('raw', encoder.encode(secret), {name: 'HMAC', hash: 'SHA-256'}, false, ['sign']);
}

async function hmac(subtle: SubtleCrypto, key: CryptoKey, message: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await subtle.sign('HMAC', key, message as Uint8Array<ArrayBuffer>));
}

/** Constant time for equal lengths: every byte is looked at whatever the earlier ones were. */
function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

function toHex(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i++) out += HEX[bytes[i]! >> 4]! + HEX[bytes[i]! & 15]!;
  return out;
}

/** signPayload on WebCrypto. */
export async function signPayloadAsync(options: SignPayloadOptions): Promise<string> {
  const secret = signingSecretOf(options.secret);
  if (!isPayload(options.payload)) throw payloadTypeError(options.payload);
  const t = unixSeconds(options.timestamp, 'timestamp');
  if (t < 0) throw new TypeError('`timestamp` must not be before 1970.');
  const text = String(t);
  const subtle = subtleCrypto();
  const mac = await hmac(subtle, await importKey(subtle, secret), signedMessage(text, options.payload));
  return `t=${text},v1=${toHex(mac)}`;
}

/**
 * `keys(i)` gives the CryptoKey of `secrets[i]`, imported only when that secret is tried: the key itself once it
 * is at hand, so that a kept key costs no await.
 */
async function verifyWith(
  request: VerifyRequest,
  keys: (index: number) => CryptoKey | Promise<CryptoKey>,
  secrets: readonly string[],
  tolerance: number,
): Promise<VerifiedSignature> {
  const payload = request.payload;
  if (!isPayload(payload)) throw payloadTypeError(payload);
  const now = unixSeconds(request.now, 'now');
  const parsed = parseSignatureHeader(request.header);
  const subtle = subtleCrypto();

  const decoded: Uint8Array[] = [];
  for (const candidate of parsed.signatures) {
    const bytes = decodeSignatureHex(candidate);
    if (bytes) decoded.push(bytes);
  }

  let secretIndex = -1;
  if (decoded.length > 0) {
    const message = signedMessage(parsed.timestampText, payload);
    for (let i = 0; i < secrets.length && secretIndex < 0; i++) {
      const key = keys(i);
      const mac = await subtle.sign(
        'HMAC',
        'then' in key ? await key : key,
        message as Uint8Array<ArrayBuffer>,
      );
      const expected = new Uint8Array(mac);
      for (const signature of decoded) {
        if (constantTimeEqual(expected, signature)) {
          secretIndex = i;
          break;
        }
      }
    }
  }
  if (secretIndex < 0) {
    throw unmatchedError(parsed, () => mismatchError(describeSecrets(secrets), parsed.timestamp));
  }
  if (Math.abs(now - parsed.timestamp) > tolerance) throw toleranceError(parsed.timestamp, now, tolerance);
  return {timestamp: parsed.timestamp, secretIndex};
}

/** verifySignature on WebCrypto: same checks, same reasons, same messages. */
export async function verifySignatureAsync(options: VerifySignatureOptions): Promise<VerifiedSignature> {
  const secrets = secretsOf(options);
  const tolerance = toleranceOf(options.toleranceSeconds);
  return verifyWith(options, (i) => importKey(subtleCrypto(), secrets[i]!), secrets, tolerance);
}

/** constructEvent on WebCrypto. */
export async function constructEventAsync(options: VerifySignatureOptions): Promise<WebhookEvent> {
  await verifySignatureAsync(options);
  return parseWebhookEvent(options.payload);
}

/**
 * WebhookVerifier on WebCrypto. Importing an HMAC key costs more than using it, so a receiver that
 * keeps one of these imports each secret once, on first use, instead of on every delivery.
 */
export class AsyncWebhookVerifier {
  readonly #secrets: readonly string[];
  readonly #keys: (CryptoKey | Promise<CryptoKey> | undefined)[];
  readonly #tolerance: number;

  constructor(options: WebhookVerifierOptions) {
    this.#secrets = [...secretsOf(options)];
    this.#keys = this.#secrets.map(() => undefined);
    this.#tolerance = toleranceOf(options.toleranceSeconds);
  }

  #key = (index: number): CryptoKey | Promise<CryptoKey> => {
    const kept = this.#keys[index];
    if (kept) return kept;
    const key = importKey(subtleCrypto(), this.#secrets[index]!);
    this.#keys[index] = key;
    // Kept as the key itself once imported; a failed import (no WebCrypto) is not kept, so a later call can try
    // again.
    key.then(
      (imported) => {
        if (this.#keys[index] === key) this.#keys[index] = imported;
      },
      () => {
        if (this.#keys[index] === key) this.#keys[index] = undefined;
      },
    );
    return key;
  };

  verify(request: VerifyRequest): Promise<VerifiedSignature> {
    return verifyWith(request, this.#key, this.#secrets, this.#tolerance);
  }

  async constructEvent(request: VerifyRequest): Promise<WebhookEvent> {
    await verifyWith(request, this.#key, this.#secrets, this.#tolerance);
    return parseWebhookEvent(request.payload);
  }
}
