// Fresh ids in the service's shapes (src/definitions.ts), from the OS CSPRNG without modulo bias: the one
// generator of the emulator (everything it stores) and of the CLI (the sample events and deliveries of
// `svc webhooks send` and `svc webhooks test-receiver`).
import {randomBytes} from 'node:crypto';
import {ID_BODY_LENGTH, ID_PREFIXES, type IdKind, type IdPrefix} from './definitions.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `length` characters of 0-9, A-Z and a-z, each equally likely. */
export function base62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // 248 = 62 * 4: dropping bytes above it keeps every character equally likely.
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** A new id with this prefix: the prefix, `_` and 24 base62 characters. */
export function newIdWithPrefix(prefix: IdPrefix): string {
  return `${prefix}_${base62(ID_BODY_LENGTH)}`;
}

/** A new id of this kind (its prefix from ID_PREFIXES). */
export function newId(kind: IdKind): string {
  return newIdWithPrefix(ID_PREFIXES[kind]);
}
