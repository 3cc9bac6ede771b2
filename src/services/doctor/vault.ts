// The emulator lane on a shared PostgreSQL: whether the vault key an emulator started here would use is the one
// the database's signing secrets are stored under (the first emulator on it set that), before starting one
// here is refused or answers 500 where a secret is read.
import {readFile} from 'node:fs/promises';
import {join} from 'node:path';
import {isVaultKeyCheckOf, VAULT_CHECK} from '../../emulator-layout/vault-check.js';
import {parseVaultKey} from '../../schemas/vault-key.js';
import {check, type DoctorCheck} from './check.js';

/** The key an emulator started here would use: SVC_EMULATOR_VAULT_KEY, else <dataDir>/vault.key, else a new one. */
async function localKey(
  env: NodeJS.ProcessEnv,
  dataDir: string,
): Promise<{key?: Buffer; from: string; error?: string}> {
  const fromEnv = env.SVC_EMULATOR_VAULT_KEY;
  const path = join(dataDir, 'vault.key');
  const from = fromEnv ? 'SVC_EMULATOR_VAULT_KEY' : path;
  try {
    return {key: parseVaultKey(fromEnv || (await readFile(path, 'utf8'))), from};
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {from: 'none'};
    return {from, error: err instanceof Error ? err.message : String(err)};
  }
}

/** The vault key check value the database holds, undefined when no emulator has used it yet. */
export type ReadHeldCheck = (databaseUrl: string, timeoutMs: number) => Promise<string | undefined>;

export const readHeldCheck: ReadHeldCheck = async (databaseUrl, timeoutMs) => {
  const {default: pg} = await import('pg');
  const client = new pg.Client({
    connectionString: databaseUrl,
    connectionTimeoutMillis: timeoutMs,
    query_timeout: timeoutMs,
  });
  await client.connect();
  try {
    const {rows} = await client.query<{value: string}>('SELECT value FROM emulator_meta WHERE key = $1', [
      VAULT_CHECK,
    ]);
    return rows[0]?.value;
  } catch (err) {
    if ((err as {code?: string}).code === '42P01') return undefined; // no emulator has set the database up yet
    throw err;
  } finally {
    await client.end().catch(() => undefined);
  }
};

export async function checkSharedVault(input: {
  env: NodeJS.ProcessEnv;
  dataDir: string;
  timeoutMs: number;
  readHeld?: ReadHeldCheck;
}): Promise<DoctorCheck | undefined> {
  const databaseUrl = input.env.SVC_EMULATOR_DATABASE_URL;
  if (!databaseUrl) return undefined;
  const mine = await localKey(input.env, input.dataDir);
  if (mine.error) {
    return check(
      'vault_key',
      'emulator',
      'fail',
      `the vault key in ${mine.from} is not usable (${mine.error})`,
      'Set SVC_EMULATOR_VAULT_KEY to the key the other emulators on this database use',
    );
  }
  let held: string | undefined;
  try {
    held = await (input.readHeld ?? readHeldCheck)(databaseUrl, input.timeoutMs);
  } catch (err) {
    // The address may hold a password: only the error's code or message, never the URL.
    const why = (err as {code?: string}).code ?? (err instanceof Error ? err.message : String(err));
    return check(
      'vault_key',
      'emulator',
      'warn',
      `the PostgreSQL of SVC_EMULATOR_DATABASE_URL could not be read (${why})`,
      'Check that it runs and the address is right',
    );
  }
  if (held === undefined) {
    return check(
      'vault_key',
      'emulator',
      'ok',
      'no emulator has used the PostgreSQL of SVC_EMULATOR_DATABASE_URL yet: the first one sets its vault key',
    );
  }
  if (!mine.key) {
    return check(
      'vault_key',
      'emulator',
      'fail',
      'the shared PostgreSQL holds secrets under a vault key, and this machine has none: an emulator started here would make a new one and be refused',
      'Set SVC_EMULATOR_VAULT_KEY to the key of the other emulators on this database (their data dir holds it in vault.key)',
    );
  }
  if (!isVaultKeyCheckOf(held, mine.key)) {
    return check(
      'vault_key',
      'emulator',
      'fail',
      `the vault key from ${mine.from} is not the one the shared PostgreSQL's signing secrets are stored under: an emulator started here is refused`,
      'Set SVC_EMULATOR_VAULT_KEY to the key of the other emulators on this database (their data dir holds it in vault.key)',
    );
  }
  return check('vault_key', 'emulator', 'ok', `the vault key from ${mine.from} is the shared PostgreSQL's`);
}
