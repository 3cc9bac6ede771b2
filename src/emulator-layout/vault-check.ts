// How the database tells whether a process holds the vault key its signing secrets were stored under: the entry
// the first process writes, and its value. The emulator writes and checks it; `svc doctor` reads it to warn before a
// start that would be refused.
import {createHash, createHmac, timingSafeEqual} from 'node:crypto';

/** The emulator_meta entry holding vaultKeyCheckValue of the key the first process started with. */
export const VAULT_CHECK = 'vault_key_check';

/** An HMAC of a fixed text under the key: says whether a key is the one, and nothing about the key. */
export function vaultKeyCheckValue(key: Buffer): string {
  return createHmac('sha256', key).update('svc emulator vault key check').digest('hex');
}

/** Whether `held` (the database's VAULT_CHECK entry) is `key`'s check value; compared in constant time. */
export function isVaultKeyCheckOf(held: string, key: Buffer): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(held), digest(vaultKeyCheckValue(key)));
}
