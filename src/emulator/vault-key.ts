// Where the vault key comes from (given, from SVC_EMULATOR_VAULT_KEY, or generated once into <dataDir>/vault.key),
// and the check that it is the key the database's signing secrets were stored under.
import {randomBytes} from 'node:crypto';
import {readFile, writeFile} from 'node:fs/promises';
import {join} from 'node:path';
import {parseVaultKey} from '../schemas/vault-key.js';
import {safeEqual} from './hash.js';
import type {Repositories} from './db/repositories.js';
import {createVault, VaultKeyMismatchError} from './vault.js';
import {VAULT_CHECK, vaultKeyCheckValue} from '../emulator-layout/vault-check.js';

export {parseVaultKey, VaultKeyError} from '../schemas/vault-key.js';

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

/**
 * Refuses a vault key other than the one the database's secrets were stored under. The first process to start
 * with a key writes its check value; every later one (another process on a shared PostgreSQL, a restart) must
 * match it, or it would fail every attempt it claimed and answer 500 where a secret is read. A database from
 * before the check is judged by one of its stored secrets.
 */
export async function checkVaultKey(
  repos: Pick<Repositories, 'meta' | 'endpoints'>,
  key: Buffer,
): Promise<void> {
  const check = vaultKeyCheckValue(key);
  let held = await repos.meta.get(VAULT_CHECK);
  if (held === undefined) {
    const stored = await repos.endpoints.anySecretCiphertext();
    if (stored !== undefined) createVault(key).decrypt(stored);
    held = await repos.meta.setIfAbsent(VAULT_CHECK, check);
  }
  if (!safeEqual(held, check)) throw new VaultKeyMismatchError();
}
