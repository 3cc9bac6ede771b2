// Fresh ids in the service's shapes (src/definitions.ts) for what the CLI makes up itself: the sample events
// and deliveries of `svc webhooks send` and `svc webhooks test-receiver`. From the OS CSPRNG, without modulo bias.
import {randomBytes} from 'node:crypto';
import {ID_BODY_LENGTH, ID_PREFIXES, type IdKind} from '../definitions.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function base62(length: number): string {
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

/** A new id of this kind: its prefix, `_` and 24 base62 characters. */
export function newId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_${base62(ID_BODY_LENGTH)}`;
}
