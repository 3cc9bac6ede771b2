// New identifiers and secrets in the shapes definitions.ts gives, from the OS CSPRNG without modulo bias.
import {randomBytes} from 'node:crypto';

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

export type IdPrefix = 'org' | 'key' | 'we' | 'evt' | 'dlv' | 'sbx' | 'usr' | 'att';

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${base62(24)}`;
}

export function newApiKeySecret(): string {
  return `svc_${base62(40)}`;
}

export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}
