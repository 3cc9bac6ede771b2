// Fresh identifiers and secrets in the service's shapes (definitions.ts), from the OS CSPRNG without modulo bias: the
// emulator makes its records with them, and the CLI the sample events and deliveries it sends.
import {randomBytes} from 'node:crypto';
import {
  API_KEY_SECRET_BODY_LENGTH,
  API_KEY_SECRET_PREFIX,
  ID_BODY_LENGTH,
  type IdPrefix,
  SANDBOX_LINK_TOKEN_BYTES,
  SIGNING_SECRET_BYTES,
  SIGNING_SECRET_PREFIX,
} from './definitions.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export function base62(length: number): string {
  let out = '';
  while (out.length < length) {
    const bytes = randomBytes(length * 2);
    for (const byte of bytes) {
      // 248 = 62 * 4: dropping bytes above it keeps every character equally likely.
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${base62(ID_BODY_LENGTH)}`;
}

export function newApiKeySecret(): string {
  return `${API_KEY_SECRET_PREFIX}${base62(API_KEY_SECRET_BODY_LENGTH)}`;
}

export function newSigningSecret(): string {
  return `${SIGNING_SECRET_PREFIX}${randomBytes(SIGNING_SECRET_BYTES).toString('base64')}`;
}

/** The token in a sandbox link's URL: anyone holding the URL can use the link, so it is as long as a key. */
export function newLinkToken(): string {
  return randomBytes(SANDBOX_LINK_TOKEN_BYTES).toString('base64url');
}
