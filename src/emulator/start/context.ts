// The context of a starting emulator, built in order: its clock, repositories, vault, default org, org clocks,
// authenticator, the traffic of port sessions, the sandboxes and the delivery engine, then the context over them
// all; then the state it starts from (an import, a seed, the demo key, the start key).
import {randomBytes} from 'node:crypto';
import {join} from 'node:path';
import {
  ADMIN_TOKEN_BYTES,
  ADMIN_TOKEN_PREFIX,
  CLOCK_SETTING_RULE,
  PORT_SESSION_ANSWER_TIMEOUT_MS,
  parseClockSetting,
} from '../../definitions.js';
import {Authenticator} from '../auth/authenticator.js';
import {AuthFailureLimiter} from '../auth/rate-limiter.js';
import {type Clock, manualClock, realClock, scaledClock} from '../clock.js';
import type {EmulatorContext} from '../context.js';
import {CurrentState} from '../current-state.js';
import {SIGNAL_CHANNELS} from '../db/notify.js';
import {OWN_DATABASE, readBarrier} from '../db/read-barrier.js';
import {ReadCache} from '../db/read-cache.js';
import {createRepositories, type Repositories} from '../db/repositories.js';
import {CACHED_TABLES} from '../db/tables.js';
import {type DemoKey, demoKey} from '../demo-key.js';
import {createDeliveryEngine} from '../delivery/engine.js';
import {systemResolver} from '../net/address-policy.js';
import type {HostPolicy} from '../net/host-policy.js';
import {createKey} from '../ops/keys.js';
import {openOrgClocks} from '../org-clocks.js';
import {RequestLog} from '../request-log.js';
import {LinkTraffic, watchLinkState} from '../sandboxes/link-traffic.js';
import {SandboxService} from '../sandboxes/service.js';
import {openSharedManualClock} from '../shared-clock.js';
import {readStateFile} from '../state/file.js';
import {type LoadMode, type LoadResult as StateLoadResult, loadState} from '../state/load.js';
import {StateFileError} from '../state/state-file-error.js';
import {createVault, VaultKeyMismatchError} from '../vault.js';
import {checkVaultKey} from '../vault-key.js';
import {EmulatorStartError, type StartEmulatorOptions} from './options.js';
import type {Stores} from './stores.js';

export interface StartingContext {
  ctx: EmulatorContext;
  demo: DemoKey | undefined;
  /** The start key, being made: awaited once the server listens. */
  makingStartKey: Promise<{id: string; secret: string}> | undefined;
  seeded: StateLoadResult | undefined;
  imported: StateLoadResult | undefined;
}

/** What every route and operation shares, then the state the emulator starts from. */
export async function createContext(
  stores: Stores,
  options: StartEmulatorOptions,
  hosts: HostPolicy,
  dataDir: string,
  log: (line: string) => void,
): Promise<StartingContext> {
  const {db, signals} = stores;
  const clock = await openClock(stores, options, log);
  // On a shared PostgreSQL a request's reads use the caches only once this process has heard of every write
  // committed before the request began (db/read-barrier.ts); the writer waits until word of its write is sent.
  const reads = signals ? readBarrier(signals) : OWN_DATABASE;
  const trusted = reads.trusted;
  const repos = createRepositories(db, new ReadCache(db, {trusted}));
  if (stores.vaultKey.status === 'rejected') throw stores.vaultKey.reason;
  // A database in memory holds no secret stored under another key, and no later process will open it to check.
  if (stores.vaultKey.value && !stores.throwaway)
    await refuseUnlikeVaultKey(repos, dataDir, options, stores.vaultKey.value);
  const orgId = await defaultOrg(repos, clock, options.demo ?? false, stores.throwaway);
  const orgClocks = await openOrgClocks(db, clock, signals, log);
  stores.onCleanup(() => orgClocks.close());
  const auth = new Authenticator(repos.keys, clock, log, {trusted, orgNow: orgClocks.now});
  forgetCachesOnWord(stores, auth);
  const linkTraffic = new LinkTraffic({
    read: (ids) => repos.links.findByIds(ids),
    clock,
    log,
    answerTimeoutMs: options.portSessionAnswerTimeoutMs ?? PORT_SESSION_ANSWER_TIMEOUT_MS,
  });
  const vault = createVault(stores.vaultKey.value);
  const lookup = options.lookup ?? systemResolver;
  const allowLocalEndpoints = options.allowLocalEndpoints ?? false;
  const endpointDeletions = new Set<(endpointId: string) => void>();
  // The sandboxes record events for the engine (which it is told of), and the engine's sweep expires them.
  const sandboxes = new SandboxService({
    db,
    clock,
    orgNow: (id) => orgClocks.now(id),
    onEvent: () => engine.announce(),
  });
  const engine = createDeliveryEngine({
    db,
    clock,
    onOrgClockChange: (listener) => orgClocks.onChange(listener),
    vault,
    allowLocalEndpoints,
    resolver: lookup,
    signals,
    endpointDeletions,
    log,
    sweep: (now) => sandboxes.expireDue(now),
    options: {
      signatureClock: options.signatureClock,
      ...options.delivery,
      chaos: options.chaos ?? options.delivery?.chaos,
    },
  });
  // Frozen: nothing is set on the context after this (what changes, changes inside `current`).
  const ctx: EmulatorContext = Object.freeze({
    db,
    repos,
    clock,
    orgClocks,
    vault,
    auth,
    limiter: new AuthFailureLimiter(clock, options.rateLimit),
    controlLimiter: new AuthFailureLimiter(clock, options.rateLimit),
    requestLog: new RequestLog(),
    current: new CurrentState(orgId),
    adminToken: `${ADMIN_TOKEN_PREFIX}${randomBytes(ADMIN_TOKEN_BYTES).toString('base64url')}`,
    allowLocalEndpoints,
    hosts,
    lookup,
    log,
    svc: options.svcCommand ?? 'npx svc',
    signals,
    reads,
    endpointDeletions,
    linkTraffic,
    engine,
    sandboxes,
  });
  stores.onCleanup(watchLinkState(linkTraffic, {db, signals, clock}));
  if (ctx.allowLocalEndpoints) {
    log(
      'WARNING: --allow-local-endpoints is on: webhook endpoints may use http:// and loopback or private ' +
        'addresses. Never run a shared emulator like this.',
    );
  }
  if (!ctx.limiter.enabled) log(RATE_LIMIT_OFF_WARNING);
  return {ctx, ...(await loadStartState(ctx, options, dataDir))};
}

/** Said at start when the failed-authentication limit is off. */
export const RATE_LIMIT_OFF_WARNING =
  'WARNING: the failed-authentication limit is off (--no-rate-limit, or rateLimit: false): no address is ever answered 429, however ' +
  'many wrong keys it sends. For API fuzzers only; never run a shared emulator like this.';

/**
 * The emulator's clock: real, scaled (each process runs its own from its start), manual, or (on a shared
 * PostgreSQL) manual and shared by every process.
 */
async function openClock(
  stores: Stores,
  options: StartEmulatorOptions,
  log: (line: string) => void,
): Promise<Clock> {
  const setting = parseClockSetting(options.clock ?? 'real');
  if (!setting) {
    throw new EmulatorStartError(
      `the clock option must be ${CLOCK_SETTING_RULE}, not ${JSON.stringify(options.clock)}`,
      'invalid_option',
    );
  }
  if (setting.mode === 'scaled') return scaledClock(setting.scale, options.clockStart);
  if (setting.mode === 'real') return realClock();
  const start = options.clockStart ?? realClock().now();
  if (!stores.signals) return manualClock(start);
  const shared = await openSharedManualClock(stores.db, stores.signals, start, log);
  stores.onCleanup(() => shared.close());
  return shared;
}

/** On a shared PostgreSQL, another process's write to a cached table (or a lost connection) empties the caches. */
function forgetCachesOnWord(stores: Stores, auth: Authenticator): void {
  const {db, signals} = stores;
  if (!signals) return;
  const forgetAll = () => {
    db.invalidate();
    auth.forgetAll();
  };
  signals.on(SIGNAL_CHANNELS.change, (table) => {
    if ((CACHED_TABLES as readonly string[]).includes(table)) forgetAll();
  });
  signals.onReconnect(forgetAll);
}

/** The state the emulator starts from: an imported file, a seed, the demo key, and the start key (begun here). */
async function loadStartState(
  ctx: EmulatorContext,
  options: StartEmulatorOptions,
  dataDir: string,
): Promise<Omit<StartingContext, 'ctx'>> {
  const imported = options.importFile ? await loadAtStart(ctx, options.importFile, 'replace') : undefined;
  const seeded = options.seed ? await loadAtStart(ctx, options.seed, 'merge') : undefined;
  const demo = options.demo ? await demoKey(ctx, dataDir) : undefined;
  const makingStartKey = options.startKey
    ? createKey(ctx, {
        orgId: ctx.current.orgId,
        name: options.startKey.name,
        createdBy: options.startKey.createdBy,
      }).then((made) => ({id: made.key.id, secret: made.secret}))
    : undefined;
  return {demo, makingStartKey, seeded, imported};
}

/** Loads a seed at start; a file that cannot be loaded stops the start with every problem in it. */
async function loadAtStart(ctx: EmulatorContext, path: string, mode: LoadMode): Promise<StateLoadResult> {
  try {
    const document = await readStateFile(path);
    return await loadState(ctx, {document, source: path, mode, makeDefault: true});
  } catch (err) {
    if (err instanceof StateFileError) throw new EmulatorStartError(err.message, 'invalid_state_file');
    throw err;
  }
}

/** The default org: the one the database names, else a new one. A database fresh from the template names none. */
async function defaultOrg(repos: Repositories, clock: Clock, demo: boolean, fresh: boolean): Promise<string> {
  const name = demo ? 'Demo org' : 'Emulator org';
  if (fresh) return (await repos.orgs.createDefault(name, clock.now())).id;
  const known = await repos.meta.get('default_org_id');
  if (known && (await repos.orgs.get(known))) {
    if (demo) await repos.orgs.rename(known, 'Demo org');
    return known;
  }
  const org = await repos.orgs.create(name, clock.now());
  return repos.meta.setIfAbsent('default_org_id', org.id);
}

async function refuseUnlikeVaultKey(
  repos: Repositories,
  dataDir: string,
  options: StartEmulatorOptions,
  key: Buffer,
): Promise<void> {
  try {
    await checkVaultKey(repos, key);
  } catch (err) {
    if (!(err instanceof VaultKeyMismatchError)) throw err;
    const mismatch =
      "this process's vault key is not the one the database's signing secrets were stored under, so it could sign no delivery.";
    if (options.databaseUrl || options.vaultKey) {
      const where = options.databaseUrl
        ? 'Give every process sharing this database the same SVC_EMULATOR_VAULT_KEY: the one the first ' +
          "process was given, or the contents of its data dir's vault.key if it was given none"
        : `Start it with the vault key it was first started with (the one in ${join(dataDir, 'vault.key')}, unless another was given)`;
      throw new EmulatorStartError(`${mismatch} ${where}.`, 'vault_key_mismatch');
    }
    throw new EmulatorStartError(
      {
        option: 'dataDir',
        says: (name) =>
          `${mismatch} Put back the vault.key its data dir (${dataDir}) was first given, or start with a fresh data dir (${name}).`,
      },
      'vault_key_mismatch',
    );
  }
}
