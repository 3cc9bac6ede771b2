// `svc doctor`: why this machine may misbehave with svc, lane by lane, each finding with its fix. Read-only: it
// reads files and asks servers, never writes or repairs (the keychain check's throwaway entry, removed again,
// aside). The local lanes answer within a second; the checks that ask a server (the API's clock, the key, the
// emulator's clock) are bounded by their own timeouts.
import {lookup as dnsLookup} from 'node:dns/promises';
import {lookOnlyFileStore, NoApiAddressError, resolveStoredApiUrl} from '../../auth/resolve.js';
import {KeychainStore, type KeyringEntryFactory} from '../../auth/keychain-store.js';
import {ApiUrlError, localAccountUrl} from '@svc/client';
import {cacheDir, configDir} from '../../user-dirs.js';
import {checkApiKey, checkCredentialsFile, checkKeychain} from './auth.js';
import {check, type DoctorCheck, type DoctorReport, report, within} from './check.js';
import {checkApiClock, checkEmulatorClock} from './clock.js';
import {checkDataDir, checkRuntimeFile, checkTemplate} from './emulator.js';
import {checkDotLocalhost, checkForwardTo, checkLocalhost, checkProxy, type Lookup} from './network.js';
import {checkNodeVersion} from './system.js';
import {checkSharedVault, type ReadHeldCheck} from './vault.js';
import {controlOf, locateEmulator} from '../emulator/locate.js';

export {DOCTOR_LANES, type DoctorCheck, type DoctorReport} from './check.js';

export interface DoctorOptions {
  env: NodeJS.ProcessEnv;
  apiUrl?: string;
  dataDir?: string;
  /** `--forward-to`: the local server `svc listen` would relay to. */
  forwardTo?: string;
  nodeVersion?: string;
  now?: () => number;
  lookup?: Lookup;
  fetch?: typeof fetch;
  keyring?: KeyringEntryFactory;
  readVaultCheck?: ReadHeldCheck;
  /** For each question to a server or the keychain. */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 5000;
/** The keychain is local: it answers at once or never. */
const KEYCHAIN_TIMEOUT_MS = 800;
/** The local lanes answer within a second: the resolver reads /etc/hosts, a local port answers at once. */
const LOCAL_TIMEOUT_MS = 800;

const systemLookup: Lookup = (host) => dnsLookup(host, {all: true, verbatim: true});

export async function runDoctor(options: DoctorOptions): Promise<DoctorReport> {
  const now = options.now ?? Date.now;
  const lookup = options.lookup ?? systemLookup;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  // Read only: a credentials file others can read is reported below, never repaired here.
  const fileStore = lookOnlyFileStore(options.env);
  let noAddress: unknown;
  const apiUrl = await resolveStoredApiUrl({
    env: options.env,
    flags: {apiUrl: options.apiUrl},
    fileStore,
  }).catch((err: unknown) => {
    noAddress = err;
    return undefined;
  });
  // The emulator every command would act on; where they would look for it when none runs.
  const located = await locateEmulator({
    env: options.env,
    dataDir: options.dataDir,
    apiUrl: options.apiUrl,
    fileStore,
  });
  const dataDir = located.found ? located.dataDir : located.lookedFor.data_dir;
  const credentials = await checkCredentialsFile(configDir(options.env));
  const runtime = await checkRuntimeFile({dataDir, apiUrl: apiUrl ?? ''});
  const running = runtime.running;
  const accountHost = running
    ? new URL(running.account_url).hostname
    : new URL(localAccountUrl(4010)).hostname;
  const resolverTimeout = (id: string) => () =>
    check(
      id,
      'network',
      'warn',
      `the system resolver gave no answer within ${LOCAL_TIMEOUT_MS / 1000} s`,
      'Check /etc/resolv.conf and /etc/hosts',
    );

  const local: Promise<DoctorCheck>[] = [
    Promise.resolve(
      checkNodeVersion({version: options.nodeVersion ?? process.version, now: new Date(now())}),
    ),
    within(LOCAL_TIMEOUT_MS, checkLocalhost(lookup), resolverTimeout('localhost')),
    within(
      LOCAL_TIMEOUT_MS,
      checkDotLocalhost({name: accountHost, lookup}),
      resolverTimeout('dot_localhost'),
    ),
    Promise.resolve(checkProxy(options.env)),
    Promise.resolve(credentials.check),
    checkKeychain({
      apiUrl: apiUrl ?? '',
      logins: credentials.logins,
      entry: options.keyring,
      timeoutMs: KEYCHAIN_TIMEOUT_MS,
    }),
    checkDataDir(dataDir),
    Promise.resolve(runtime.check),
    checkTemplate(cacheDir(options.env)),
  ];
  if (options.forwardTo !== undefined) {
    local.push(checkForwardTo({url: options.forwardTo, lookup, timeoutMs: LOCAL_TIMEOUT_MS}));
  }
  const online: Promise<DoctorCheck | undefined>[] = [
    checkSharedVault({env: options.env, dataDir, timeoutMs, readHeld: options.readVaultCheck}),
  ];
  if (apiUrl === undefined) {
    online.push(Promise.resolve(addressProblem(noAddress)));
  } else {
    const emulatorClock = running ? await clockOf(running, options.fetch, timeoutMs) : undefined;
    online.push(
      checkApiClock({
        apiUrl,
        fetch: options.fetch ?? fetch,
        nowMs: now,
        timeoutMs,
        manualEmulator: emulatorClock?.mode === 'manual' && runtime.check.status === 'ok',
      }),
      checkApiKey({
        apiUrl,
        env: options.env,
        logins: credentials.logins,
        keychain: new KeychainStore({entry: options.keyring, timeoutMs: KEYCHAIN_TIMEOUT_MS}),
        fetch: options.fetch,
        timeoutMs,
      }),
    );
    if (running && emulatorClock) {
      online.push(
        Promise.resolve(checkEmulatorClock({apiUrl: running.api_url, state: emulatorClock, nowMs: now()})),
      );
    }
  }
  const found = await Promise.all([...local, ...online]);
  return report(found.filter((c): c is DoctorCheck => c !== undefined));
}

/**
 * Why there is no address to check against, as every command would say it: none was given (a way to give one), a
 * key from SVC_API_KEY that no address goes with, or an address given that is not valid (which one, and why).
 */
function addressProblem(err: unknown): DoctorCheck {
  if (err instanceof NoApiAddressError) {
    return check('api_address', 'auth', 'warn', err.message, err.suggestions.join('; '));
  }
  const why = err instanceof Error ? err.message : String(err);
  if (err instanceof ApiUrlError) {
    return check(
      'api_address',
      'auth',
      'fail',
      `the API address given is not valid: ${why}`,
      'Give an https:// address, or http:// to this machine only (--api-url or SVC_API_URL)',
    );
  }
  // The credentials file could not be read for the latest login's address: its own check says why and what to do.
  return check('api_address', 'auth', 'warn', `the address of the latest login could not be read: ${why}`);
}

async function clockOf(
  running: {api_url: string; admin_token: string},
  fetchImpl: typeof fetch | undefined,
  timeoutMs: number,
): Promise<{mode: string; now: string} | undefined> {
  const control = controlOf({info: running}, {fetch: fetchImpl});
  return within(
    timeoutMs,
    control.clock().catch(() => undefined),
    () => undefined,
  );
}
