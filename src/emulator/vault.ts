// Signing secrets are stored encrypted (AES-256-GCM) under the vault key; without a key they cannot be read.
import {createCipheriv, createDecipheriv, randomBytes} from 'node:crypto';
import {VAULT_KEY_BYTES} from '../definitions.js';

export class VaultUnavailableError extends Error {
  constructor() {
    super('the deployment has no vault key, so signing secrets cannot be read');
    this.name = 'VaultUnavailableError';
  }
}

/** A stored signing secret that this vault key cannot open: it was encrypted under another one. */
export class VaultKeyMismatchError extends Error {
  constructor() {
    super('a signing secret here was stored under another vault key, so it cannot be read with this one');
    this.name = 'VaultKeyMismatchError';
  }
}

export interface Vault {
  readonly available: boolean;
  encrypt(plaintext: string): string;
  decrypt(ciphertext: string): string;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** key: 32 bytes, or null for a deployment without a vault key (every call then throws VaultUnavailableError). */
export function createVault(key: Buffer | null): Vault {
  if (key === null) {
    const fail = (): never => {
      throw new VaultUnavailableError();
    };
    return {available: false, encrypt: fail, decrypt: fail};
  }
  if (key.length !== VAULT_KEY_BYTES) throw new RangeError(`the vault key must be ${VAULT_KEY_BYTES} bytes`);
  return {
    available: true,
    encrypt(plaintext) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64');
    },
    decrypt(ciphertext) {
      const raw = Buffer.from(ciphertext, 'base64');
      try {
        const iv = raw.subarray(0, IV_BYTES);
        const tag = raw.subarray(raw.length - TAG_BYTES);
        const decipher = createDecipheriv('aes-256-gcm', key, iv);
        decipher.setAuthTag(tag);
        return Buffer.concat([
          decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)),
          decipher.final(),
        ]).toString('utf8');
      } catch {
        throw new VaultKeyMismatchError();
      }
    },
  };
}
