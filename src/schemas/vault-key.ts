// The vault key's form (SVC_EMULATOR_VAULT_KEY, <data-dir>/vault.key): base64 of exactly 32 bytes, read one way
// by the emulator and by the CLI that passes it on.
import {VAULT_KEY_BYTES} from '../definitions.js';

export class VaultKeyError extends Error {}

export function parseVaultKey(base64: string): Buffer {
  const key = Buffer.from(base64.trim(), 'base64');
  if (key.length !== VAULT_KEY_BYTES)
    throw new VaultKeyError(`the vault key must be the base64 encoding of exactly ${VAULT_KEY_BYTES} bytes`);
  return key;
}
