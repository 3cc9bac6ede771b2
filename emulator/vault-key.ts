// Where the vault key comes from: given, from SVC_EMULATOR_VAULT_KEY, or generated once into <dataDir>/vault.key.
import {randomBytes} from 'node:crypto';
import {readFile, writeFile} from 'node:fs/promises';
import {join} from 'node:path';

export class VaultKeyError extends Error {}

export function parseVaultKey(base64: string): Buffer {
  const key = Buffer.from(base64.trim(), 'base64');
  if (key.length !== 32)
    throw new VaultKeyError('the vault key must be the base64 encoding of exactly 32 bytes');
  return key;
}

/** Reads <dataDir>/vault.key, creating it (0600) on first use; without a dataDir the key lives only in memory. */
export async function loadOrCreateVaultKey(dataDir: string | undefined): Promise<Buffer> {
  if (!dataDir) return randomBytes(32);
  const path = join(dataDir, 'vault.key');
  try {
    return parseVaultKey(await readFile(path, 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const key = randomBytes(32);
  try {
    // 'wx': two emulators starting at once must not each write a different key.
    await writeFile(path, `${key.toString('base64')}\n`, {mode: 0o600, flag: 'wx'});
    return key;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return parseVaultKey(await readFile(path, 'utf8'));
    throw err;
  }
}
