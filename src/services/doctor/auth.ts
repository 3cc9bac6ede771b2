// The auth lane: the stored credentials (the file's mode, the addresses keys are stored for), whether the key
// in use still works, and whether the OS keychain can keep a key. Read-only: the file is read here, not through
// the store, which repairs a wrong mode as it reads; a file open to others is reported with its fix, never changed.
// The keychain is tried as a login uses it, with a throwaway entry of its own that is removed again.
import {readFile, stat} from 'node:fs/promises';
import {join} from 'node:path';
import {KeychainStore, type KeyringEntryFactory} from '../../auth/keychain-store.js';
import {createClient, ApiError, UnauthorizedError} from '@svc/client';
import {check, type DoctorCheck} from './check.js';

export const CREDENTIALS_FILE = 'credentials.json';

export interface StoredLogins {
  current?: string;
  credentials: Record<string, {store?: string; api_key?: string}>;
}

/** The credentials file's mode and content; the logins it holds when it can be read. */
export async function checkCredentialsFile(
  configDir: string,
): Promise<{check: DoctorCheck; logins?: StoredLogins}> {
  const path = join(configDir, CREDENTIALS_FILE);
  let mode: number;
  try {
    mode = (await stat(path)).mode;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      return {
        check: check('credentials_file', 'auth', 'ok', `no stored login (${path} does not exist)`),
        logins: {credentials: {}},
      };
    }
    return {
      check: check(
        'credentials_file',
        'auth',
        'fail',
        `${path} cannot be read (${(err as NodeJS.ErrnoException).code})`,
        'Run `svc logout`, then `svc login` again',
      ),
    };
  }
  let logins: StoredLogins | undefined;
  try {
    const parsed = JSON.parse(await readFile(path, 'utf8')) as Partial<StoredLogins> & {version?: number};
    if (parsed.version !== 1 || typeof parsed.credentials !== 'object' || parsed.credentials === null)
      throw new Error();
    logins = {current: parsed.current, credentials: parsed.credentials};
  } catch {
    return {
      check: check(
        'credentials_file',
        'auth',
        'fail',
        `${path} is damaged`,
        'Run `svc logout` to remove it, then `svc login` again',
      ),
    };
  }
  const addresses = Object.keys(logins.credentials);
  const held = addresses.length ? `keys stored for ${addresses.join(', ')}` : 'no key stored';
  if (process.platform !== 'win32' && (mode & 0o077) !== 0) {
    return {
      check: check(
        'credentials_file',
        'auth',
        'fail',
        `${path} (${held}) is open to other users (mode ${(mode & 0o777).toString(8)})`,
        `chmod 600 ${path} (svc also repairs it the next time it reads it)`,
      ),
      logins,
    };
  }
  return {check: check('credentials_file', 'auth', 'ok', `${path}, mode 600: ${held}`), logins};
}

export interface ApiKeyInput {
  apiUrl: string;
  env: NodeJS.ProcessEnv;
  logins?: StoredLogins;
  keychain: KeychainStore;
  fetch?: typeof fetch;
  timeoutMs: number;
}

async function keyInUse(input: ApiKeyInput): Promise<{key?: string; source: string}> {
  const fromEnv = input.env.SVC_API_KEY?.trim();
  if (fromEnv) return {key: fromEnv, source: 'SVC_API_KEY'};
  const entry = input.logins?.credentials[input.apiUrl];
  if (entry?.store === 'file' && typeof entry.api_key === 'string')
    return {key: entry.api_key, source: 'the credentials file'};
  if (entry?.store === 'keychain') {
    const key = await input.keychain.get(input.apiUrl).catch(() => null);
    return {key: key ?? undefined, source: 'the OS keychain'};
  }
  return {source: 'none'};
}

/** Which key goes to the address in use, and whether the address still takes it (one GET /v1/org). */
export async function checkApiKey(input: ApiKeyInput): Promise<DoctorCheck> {
  const {key, source} = await keyInUse(input);
  if (!key) {
    const others = Object.keys(input.logins?.credentials ?? {}).filter((a) => a !== input.apiUrl);
    const elsewhere = others.length
      ? `; keys are stored for ${others.join(', ')} only, and each goes only there`
      : '';
    return check(
      'api_key',
      'auth',
      'warn',
      `no key for ${input.apiUrl}${source === 'the OS keychain' ? ' (its keychain entry is gone or unreachable)' : ''}${elsewhere}`,
      `Log in to it: svc login --api-url ${input.apiUrl} (or set SVC_API_KEY with SVC_API_URL)`,
    );
  }
  try {
    const client = createClient({
      apiUrl: input.apiUrl,
      apiKey: key,
      fetch: input.fetch,
      timeoutMs: input.timeoutMs,
      retries: 0,
    });
    const org = await client.getOrg();
    return check('api_key', 'auth', 'ok', `the key from ${source} works for ${input.apiUrl} (org ${org.id})`);
  } catch (err) {
    if (err instanceof UnauthorizedError) {
      return check(
        'api_key',
        'auth',
        'fail',
        `${input.apiUrl} answers 401 to the key from ${source}: it was revoked, has expired or belongs to another deployment`,
        `Make a new key on the account page and log in with it: svc login --api-url ${input.apiUrl}`,
      );
    }
    const why = err instanceof ApiError ? err.message : String(err);
    return check(
      'api_key',
      'auth',
      'warn',
      `could not check the key from ${source} against ${input.apiUrl} (${why})`,
      'Run `svc org` to see the whole error',
    );
  }
}

/** The account of the throwaway entry the keychain check stores, reads back and removes. */
export const KEYCHAIN_PROBE_ACCOUNT = 'svc-doctor-probe';

/**
 * Whether the OS keychain can keep a key, tried the way `svc login --keychain` uses it: a throwaway entry is
 * stored, read back and removed (a read alone answers "nothing stored" where storing is refused: AccessDenied
 * without a secret service). @napi-rs/keyring fails at once without a secret service; every call is bounded.
 */
export async function checkKeychain(input: {
  apiUrl: string;
  logins?: StoredLogins;
  entry?: KeyringEntryFactory;
  timeoutMs: number;
}): Promise<DoctorCheck> {
  const users = Object.entries(input.logins?.credentials ?? {})
    .filter(([, e]) => e.store === 'keychain')
    .map(([a]) => a);
  const store = new KeychainStore({entry: input.entry, timeoutMs: input.timeoutMs});
  const account = `${KEYCHAIN_PROBE_ACCOUNT}-${process.pid}`;
  const value = `probe-${crypto.randomUUID()}`;
  let stored = false;
  try {
    await store.set(account, value);
    stored = true;
    const back = await store.get(account);
    if (back !== value) throw new Error('what was stored could not be read back');
  } catch (err) {
    if (stored) await store.delete(account).catch(() => undefined);
    return keychainRefused(err, users);
  }
  try {
    await store.delete(account);
  } catch (err) {
    return check(
      'keychain',
      'auth',
      'warn',
      `the OS keychain stores and reads keys, but the check's throwaway entry (service svc, account ${account}) could not be removed (${reasonOf(err)})`,
      `Remove that entry with your keychain's tool (secret-tool clear service svc account ${account}, or Keychain Access)`,
    );
  }
  return check(
    'keychain',
    'auth',
    'ok',
    'the OS keychain stores, reads and removes keys (a throwaway entry was tried): `svc login --keychain` works here',
  );
}

/** The keyring's own words (AccessDenied, NoStorageAccess, no answer within …). */
function reasonOf(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  // KeychainUnavailableError says "not available here (why); use the file store": the why is what counts here.
  return /not available here \((.*)\); use the file store/.exec(message)?.[1] ?? message;
}

function keychainRefused(err: unknown, users: string[]): DoctorCheck {
  const reason = `the OS keychain cannot keep keys here (${reasonOf(err)}), so \`svc login --keychain\` fails`;
  if (users.length === 0) {
    return check(
      'keychain',
      'auth',
      'ok',
      `${reason}; no login uses it (keys are kept in the credentials file)`,
    );
  }
  return check(
    'keychain',
    'auth',
    'fail',
    `${reason}, and the logins for ${users.join(', ')} keep their keys there`,
    'Unlock the keychain (start a secret service such as gnome-keyring), or log in again without --keychain',
  );
}
