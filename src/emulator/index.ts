// The emulator as a library: startEmulator() opens storage, serves the API and the control surface, and stops cleanly.
import {MembershipRepository} from './web/db/memberships.js';
import {randomBytes} from 'node:crypto';
import {existsSync, mkdtempSync} from 'node:fs';
import {rm} from 'node:fs/promises';
import type {Server} from 'node:http';
import type {AddressInfo} from 'node:net';
import {tmpdir} from 'node:os';
import {join, resolve} from 'node:path';
import {serve} from '@hono/node-server';
import {PORT_SESSION_ANSWER_TIMEOUT_MS, type SignatureClock} from '../definitions.js';
import {createApp} from './app.js';
import {LinkTraffic, watchLinkState} from './links/traffic.js';
import {acceptUpgrades} from './links/upgrade.js';
import {type DemoKey, demoKey} from './demo-key.js';
import {createKey} from './ops/keys.js';
import {DataDirError, makeDataDirPrivate} from './data-dir.js';
import {Authenticator} from './auth/authenticator.js';
import {AuthFailureLimiter, type RateLimitOptions} from './auth/rate-limiter.js';
import {type Clock, manualClock, realClock} from './clock.js';
import type {EmulatorContext, EmulatorPlugin} from './context.js';
import {
  EmulatorControl,
  isProcessAlive,
  readRuntimeFile,
  removeRuntimeFile,
  writeRuntimeFile,
  localAccountUrl,
} from '@svc/client';
import type {Database} from './db/database.js';
import {openStorage} from './db/open.js';
import {type DatabaseSignals, listenToDatabase, SIGNAL_CHANNELS} from './db/notify.js';
import {ReadCache, trackWrites, type WriteTrackedDatabase} from './db/read-cache.js';
import {createRepositories, type Repositories} from './db/repositories.js';
import {type Resolver, systemResolver} from './net/address-policy.js';
import {answerClientError} from './net/client-error.js';
import {openSharedManualClock, type SharedManualClock} from './shared-clock.js';
import {openOrgClocks} from './org-clocks.js';
import {asyncDispose} from './async-dispose.js';
import {createVault, VaultKeyMismatchError} from './vault.js';
import type {ChaosSettings} from './delivery/chaos.js';
import type {DeliveryPluginOptions} from './delivery/plugin.js';
import {createEnginePlugin} from './engine.js';
import {checkVaultKey, loadOrCreateVaultKey} from './vault-key.js';
import {createHostPolicy, type HostPolicy, HostNameError} from './net/host-policy.js';
import {readStateFile} from './state/file.js';
import {type LoadMode, type LoadResult as StateLoadResult, loadState} from './state/load.js';
import {exportSnapshot} from './state/snapshot.js';
import {StateFileError} from './state/state-file-error.js';
import type {Snapshot} from '../schemas/snapshot.js';
import {RequestLog} from './request-log.js';
import {displayText} from '../definitions.js';

export {createApp} from './app.js';
export {EmulatorControl, EmulatorControlError} from '@svc/client';
// Every record a test holds, by name (the control client's answers and requests, the /v1 records).
export type {
  ApiKey,
  ClockMoveOptions,
  ClockState,
  CreatedKey,
  CreatedWebhook,
  CreateKeyRequest,
  CreateOrgRequest,
  CreateSandboxRequest,
  CreateWebhookRequest,
  Delivery,
  DeliveryAttempt,
  DeliveryDetail,
  DeliveryStatus,
  Duration,
  EndpointHealth,
  EventType,
  KeyRecord,
  Org,
  OrgClockState,
  OrgDeleted,
  OrgReset,
  Ready,
  SandboxAction,
  SandboxActionRequest,
  SandboxMove,
  SandboxRecord,
  SvcEvent,
  TriggerRequest,
  WaitForDeliveryOptions,
  WebhookEndpoint,
} from '@svc/client';
export type {EmulatorContext, EmulatorPlugin} from './context.js';
export {checkEndpointHost, checkEndpointUrl, isPublicAddress, type Resolver} from './net/address-policy.js';
export {OperationError, type Problem} from './operation-error.js';
export {
  CHAOS_EXAMPLE,
  type ChaosSettings,
  ChaosSettingsError,
  describeChaos,
  parseChaosSpec,
} from './delivery/chaos.js';
export {DEFAULT_RATE_LIMIT} from './auth/rate-limiter.js';
export {readStateFile} from './state/file.js';
// What `svc doctor` checks a data dir and a shared database's vault key with, loaded by it on demand.
export {templateFilesProblem} from './db/template-manifest.js';
export {safeEqual} from './hash.js';
export {vaultKeyCheckValue} from './vault.js';
export {VAULT_CHECK} from './vault-key.js';
export {StateFileError} from './state/state-file-error.js';
export {readRuntimeFile, runtimeFilePath, type RuntimeInfo} from '@svc/client';
export type {StateLoadResult};
export type {Snapshot} from '../schemas/snapshot.js';

export interface StartEmulatorOptions {
  /** Default 4010; 0 picks a free port. */
  port?: number;
  /** The address to listen on; default 127.0.0.1. */
  host?: string;
  /**
   * Names besides localhost, 127.0.0.1, [::1] and `host` that requests may be addressed to (a container's, a
   * tunnel's). Any other Host is refused (DNS rebinding).
   */
  allowedHosts?: string[];
  /**
   * Where data, vault.key and emulator.json live; required unless inMemory (then a temporary one by default).
   * The CLI passes the user data dir.
   */
  dataDir?: string;
  /** Where a database template is made and kept when the package has none built (the CLI passes the user cache). */
  templateCacheDir?: string;
  /** Nothing survives stop(). */
  inMemory?: boolean;
  /** A real PostgreSQL instead of the embedded one. */
  databaseUrl?: string;
  clock?: 'real' | 'manual';
  clockStart?: Date;
  /**
   * The time deliveries are signed with: 'real' (default), so a receiver on a real clock accepts them however
   * far a manual clock has moved; 'emulator' signs with the emulator's clock, for receivers whose tests share it.
   */
  signatureClock?: SignatureClock;
  /** Run like a deployment without a vault key: signing secrets cannot be stored or read. */
  noVaultKey?: boolean;
  /** 32 bytes; default: SVC_EMULATOR_VAULT_KEY is the caller's business, else <dataDir>/vault.key. */
  vaultKey?: Buffer;
  /** Lets endpoints use http:// and loopback/private hosts. For local development only. */
  allowLocalEndpoints?: boolean;
  /**
   * An API key of the default org made as the emulator starts (returned once as startKey), before the delivery
   * engine's first work: `svc emulator exec` hands one to its command without waiting behind that work.
   */
  startKey?: {name: string; createdBy?: string};
  /** Name the default org as a demo org and give it a demo key: the data dir's earlier one while it works, else a new one. */
  demo?: boolean;
  rateLimit?: RateLimitOptions;
  /** How long a port session waits for the app behind it to start answering (then 504); tests shorten it. */
  portSessionAnswerTimeoutMs?: number;
  log?: (line: string) => void;
  /** DNS resolution for endpoint checks and deliveries (tests pass a fake one). */
  lookup?: Resolver;
  /**
   * How the account page spells the CLI in the commands it suggests: the CLI passes how it was itself run
   * (`svc`, `npx svc`, or node and its path). Default `npx svc`, which runs in a project that depends on svc.
   */
  svcCommand?: string;
  /**
   * A snapshot (or seed) file loaded at start in place of the state, before the emulator answers; a seed
   * given too is loaded after it.
   */
  importFile?: string;
  /**
   * A seed file (JSON) loaded at start, before the emulator answers: its orgs, people, keys, endpoints and
   * sandboxes are added without firing any event, and its first org becomes the default org.
   */
  seed?: string;
  /**
   * Serve only, with no background work (no delivery attempts, no sandbox expiry): for a short-lived emulator
   * that loads, saves or resets the state of a data dir or database whose emulator is stopped.
   */
  serveOnly?: boolean;
  /** Delivery engine tuning (tests shorten the attempt timeout; benchmarks size the lanes). */
  delivery?: DeliveryPluginOptions;
  /** Delivery chaos for every endpoint (duplicates, held-back and delayed first attempts), from a seed. */
  chaos?: ChaosSettings;
}

export interface RunningEmulator {
  apiUrl: string;
  /**
   * The account page, for browsers: at its own name (`http://svc-<port>.localhost:<port>/account`) when it listens
   * on 127.0.0.1, ::1 or every interface. Node may not resolve that name; programs use apiUrl.
   */
  accountUrl: string;
  adminToken: string;
  dataDir: string;
  orgId: string;
  /** Someone owns the default org already (signed in to the account page on an earlier run): true at start. */
  owned: boolean;
  clock: Clock;
  db: Database;
  repos: Repositories;
  control: EmulatorControl;
  /** What the routes share; tests build extra apps over it with createApp. */
  context: EmulatorContext;
  /** Only with demo: the data dir's demo key, kept from an earlier start (reused) or minted by this one. */
  demoKey?: DemoKey;
  /** Only with the startKey option: its id and secret, shown nowhere else. */
  startKey?: {id: string; secret: string};
  /** Only with seed: what was loaded, with the secrets the seed left to the emulator (shown this once). */
  seeded?: StateLoadResult;
  /** Only with importFile: what was loaded. */
  imported?: StateLoadResult;
  /** The whole state as a snapshot document; it holds signing secrets in clear text. */
  exportState(): Promise<Snapshot>;
  stop(): Promise<void>;
  /** `await using emulator = await startEmulator(…)` stops it at the end of the block. */
  [Symbol.asyncDispose](): Promise<void>;
}

export class EmulatorStartError extends Error {
  constructor(
    message: string,
    readonly code:
      | 'already_running'
      | 'port_in_use'
      | 'data_dir_not_private'
      | 'invalid_option'
      | 'vault_key_mismatch'
      | 'start_failed'
      | 'invalid_state_file',
  ) {
    super(message);
    this.name = 'EmulatorStartError';
  }
}

/**
 * The delivery engine and sandboxes plug in here: each plugin's routes are mounted by createApp, its
 * start() runs once the server listens and its stop() before the database closes.
 */
function defaultPlugins(options: StartEmulatorOptions): EmulatorPlugin[] {
  return [
    createEnginePlugin({
      signatureClock: options.signatureClock,
      ...options.delivery,
      chaos: options.chaos ?? options.delivery?.chaos,
    }),
  ];
}

/** The tables whose rows the read cache holds (see createRepositories). */
const CACHED_TABLES = ['orgs', 'api_keys', 'webhook_endpoints'] as const;
/** Further tables whose writes this process is told of: they decide whether a sandbox link works. */
const NOTICED_TABLES = ['sandboxes', 'sandbox_links'] as const;

export async function startEmulator(options: StartEmulatorOptions = {}): Promise<RunningEmulator> {
  if (!options.dataDir && !options.inMemory) {
    throw new TypeError('startEmulator needs a dataDir, or inMemory: true');
  }
  let hosts: HostPolicy;
  try {
    hosts = createHostPolicy({boundHost: options.host ?? '127.0.0.1', allowedHosts: options.allowedHosts});
  } catch (err) {
    if (err instanceof HostNameError) throw new EmulatorStartError(err.message, 'invalid_option');
    throw err;
  }
  const ownsDataDir = !options.dataDir;
  // Made at once: a single system call, with nothing else to wait for.
  const dataDir = resolve(options.dataDir ?? mkdtempSync(join(tmpdir(), 'svc-emulator-')));
  // A start that fails leaves nothing behind: a data dir it made is removed whole (an existing one keeps
  // what it held; openStorage removes a database it had only begun to make).
  const madeHere = ownsDataDir || !existsSync(dataDir);
  try {
    return await startIn(dataDir, ownsDataDir, options, hosts);
  } catch (err) {
    if (madeHere) await rm(dataDir, {recursive: true, force: true});
    throw err;
  }
}

async function startIn(
  dataDir: string,
  ownsDataDir: boolean,
  options: StartEmulatorOptions,
  hosts: HostPolicy,
): Promise<RunningEmulator> {
  // Log lines quote what people typed (an email in the sign-in form, a URL): shown through the one text policy,
  // so none can move a terminal's cursor, retitle it or reorder a line.
  const sink = options.log ?? (() => undefined);
  const log = (line: string) => sink(displayText(line, {multiline: true}));
  const stores = await claimAndOpen(dataDir, ownsDataDir, options, log);
  try {
    const {ctx, demo, makingStartKey, seeded, imported} = await createContext(
      stores,
      options,
      hosts,
      dataDir,
      log,
    );
    await stores.endStartup();
    // The start key is made while the server starts listening; the engine starts once both are done.
    makingStartKey?.catch(() => undefined);
    const served = await serveEmulator(ctx, defaultPlugins(options), {
      port: options.port ?? 4010,
      host: options.host ?? '127.0.0.1',
      dataDir,
      cleanup: stores.cleanup,
      serveOnly: options.serveOnly ?? false,
      pluginsAfter: makingStartKey,
      removesDataDir: ownsDataDir,
    });
    let startKey: {id: string; secret: string} | undefined;
    try {
      startKey = await makingStartKey;
    } catch (err) {
      await served.stop();
      throw err;
    }
    return {
      ...served,
      adminToken: ctx.adminToken,
      dataDir,
      orgId: ctx.orgId,
      owned: (await new MembershipRepository(ctx.db).members(ctx.orgId)).some((m) => m.role === 'owner'),
      clock: ctx.clock,
      db: ctx.db,
      repos: ctx.repos,
      control: new EmulatorControl({url: served.apiUrl, adminToken: ctx.adminToken}),
      context: ctx,
      demoKey: demo,
      startKey,
      seeded,
      imported,
      exportState: () => exportSnapshot(ctx),
      [asyncDispose]: served.stop,
    };
  } catch (err) {
    await stores.cleanup();
    throw err;
  }
}

/**
 * Claims the data dir, then opens the stores. A data dir made for this run alone (in memory) holds nothing of
 * another emulator's, so there the database starts opening while the dir is claimed.
 */
async function claimAndOpen(
  dataDir: string,
  ownsDataDir: boolean,
  options: StartEmulatorOptions,
  log: (line: string) => void,
): Promise<Stores> {
  if (!ownsDataDir) {
    await claimDataDir(dataDir);
    return openStores(dataDir, ownsDataDir, options, log);
  }
  const [claimed, opened] = await Promise.allSettled([
    claimDataDir(dataDir),
    openStores(dataDir, ownsDataDir, options, log),
  ]);
  if (claimed.status === 'rejected') {
    if (opened.status === 'fulfilled') await opened.value.cleanup();
    throw claimed.reason;
  }
  if (opened.status === 'rejected') throw opened.reason;
  return opened.value;
}

/** Makes the data dir (when missing) private, and refuses one another running emulator uses. */
async function claimDataDir(dataDir: string): Promise<void> {
  // Made (when missing) and locked down before anything is read from it or written to it.
  try {
    await makeDataDirPrivate(dataDir);
  } catch (err) {
    if (err instanceof DataDirError) throw new EmulatorStartError(err.message, 'data_dir_not_private');
    throw err;
  }
  const existing = await readRuntimeFile(dataDir);
  if (existing && existing.pid !== process.pid && isProcessAlive(existing.pid)) {
    throw new EmulatorStartError(
      `an emulator (pid ${existing.pid}) already runs with the data dir ${dataDir} at ${existing.api_url}`,
      'already_running',
    );
  }
}

/** The storage an emulator runs on, opened: its database (write-tracked), word of other processes, the vault key. */
interface Stores {
  db: WriteTrackedDatabase;
  signals: DatabaseSignals | undefined;
  /** Read while the database opened; reported once the context needs it. */
  vaultKey: PromiseSettledResult<Buffer | null>;
  /** The database lives in memory and dies with this process: fresh from the template, nothing before it. */
  throwaway: boolean;
  /** Lets other processes start on the same database (PostgreSQL): call once the schema is ready. */
  endStartup(): Promise<void>;
  /** Runs `close` when the stores close, before the database does. */
  onCleanup(close: () => void): void;
  /** Closes everything opened here, and removes a data dir made for this run only. */
  cleanup(): Promise<void>;
}

async function openStores(
  dataDir: string,
  ownsDataDir: boolean,
  options: StartEmulatorOptions,
  log: (line: string) => void,
): Promise<Stores> {
  // The vault key is read while the database opens; a failure of either is reported after both settle.
  const [opened, vaultKey] = await Promise.allSettled([
    openStorage({
      dataDir,
      inMemory: options.inMemory,
      databaseUrl: options.databaseUrl,
      templateCacheDir: options.templateCacheDir,
      holdStartupLock: true,
    }),
    loadVaultKey(options, options.inMemory ? undefined : dataDir),
  ]);
  if (opened.status === 'rejected') throw opened.reason;
  const storage = opened.value;
  // Again, for what opening the storage just wrote there (the embedded database's files; none in memory).
  if (!storage.throwaway) {
    await makeDataDirPrivate(dataDir).catch(async (err: unknown) => {
      await storage.db.close().catch(() => undefined);
      await storage.cleanup();
      throw err;
    });
  }
  let signals: DatabaseSignals | undefined;
  if (storage.db.kind === 'postgres' && options.databaseUrl) {
    try {
      signals = await listenToDatabase({
        connectionString: options.databaseUrl,
        send: (sql, params) => storage.db.query(sql, params),
        log,
      });
    } catch (err) {
      await storage.endStartup?.();
      await storage.db.close().catch(() => undefined);
      await storage.cleanup();
      throw err;
    }
  }
  // Every write bumps a generation, so the read cache can never serve what a write changed. On a shared
  // PostgreSQL a write also returns only once the other processes have been sent word of it.
  const sync = signals ? signals.sync.bind(signals) : undefined;
  const db = trackWrites(storage.db, CACHED_TABLES, {afterWrite: sync, noticedTables: NOTICED_TABLES});
  const closers: (() => void)[] = [];
  return {
    db,
    signals,
    vaultKey,
    throwaway: storage.throwaway ?? false,
    endStartup: async () => {
      await storage.endStartup?.();
    },
    onCleanup: (close) => {
      closers.push(close);
    },
    cleanup: async () => {
      await storage.endStartup?.();
      for (const close of closers.splice(0)) close();
      await signals?.close();
      // In memory, nothing outlives the stop: the copy is dropped without PostgreSQL's shutdown checkpoint.
      if (!storage.throwaway) await db.close().catch(() => undefined);
      // A data dir made for this run holds none of the storage (it is in memory or elsewhere): both go at once.
      await Promise.all([
        storage.cleanup(),
        ownsDataDir ? rm(dataDir, {recursive: true, force: true}) : undefined,
      ]);
    },
  };
}

/** What every route and operation shares: the clock, repositories, vault, default org, authenticator, limiters. */
async function createContext(
  stores: Stores,
  options: StartEmulatorOptions,
  hosts: HostPolicy,
  dataDir: string,
  log: (line: string) => void,
): Promise<{
  ctx: EmulatorContext;
  demo: DemoKey | undefined;
  /** The start key, being made: awaited once the server listens. */
  makingStartKey: Promise<{id: string; secret: string}> | undefined;
  seeded: StateLoadResult | undefined;
  imported: StateLoadResult | undefined;
}> {
  const {db, signals} = stores;
  const start = options.clockStart ?? new Date();
  let sharedClock: SharedManualClock | undefined;
  if (options.clock === 'manual' && signals) {
    sharedClock = await openSharedManualClock(db, signals, start, log);
    const opened = sharedClock;
    stores.onCleanup(() => opened.close());
  }
  const clock: Clock = sharedClock ?? (options.clock === 'manual' ? manualClock(start) : realClock());
  // On a shared PostgreSQL the caches hold only while word of other processes' writes can reach this one.
  const live = signals ? () => signals.live : undefined;
  const repos = createRepositories(db, new ReadCache(db, {trusted: live}));
  if (stores.vaultKey.status === 'rejected') throw stores.vaultKey.reason;
  // A database in memory holds no secret stored under another key, and no later process will open it to check.
  if (stores.vaultKey.value && !stores.throwaway)
    await refuseUnlikeVaultKey(repos, dataDir, options, stores.vaultKey.value);
  const vault = createVault(stores.vaultKey.value);
  const orgId = await defaultOrg(repos, clock, options.demo ?? false, stores.throwaway);
  const adminToken = `adm_${randomBytes(24).toString('base64url')}`;
  const orgClocks = await openOrgClocks(db, clock, signals, log);
  stores.onCleanup(() => orgClocks.close());
  const auth = new Authenticator(repos.keys, clock, log, {trusted: live, orgNow: orgClocks.now});
  if (signals) {
    const forgetAll = () => {
      db.invalidate();
      auth.forgetAll();
    };
    signals.on(SIGNAL_CHANNELS.change, (table) => {
      if ((CACHED_TABLES as readonly string[]).includes(table)) forgetAll();
    });
    signals.onReconnect(forgetAll);
  }
  const ctx: EmulatorContext = {
    db,
    repos,
    clock,
    orgClocks,
    vault,
    auth,
    limiter: new AuthFailureLimiter(clock, options.rateLimit),
    controlLimiter: new AuthFailureLimiter(clock, options.rateLimit),
    requestLog: new RequestLog(),
    orgId,
    adminToken,
    allowLocalEndpoints: options.allowLocalEndpoints ?? false,
    hosts,
    lookup: options.lookup ?? systemResolver,
    log,
    svc: options.svcCommand ?? 'npx svc',
    signals,
    endpointDeletions: new Set(),
    linkTraffic: new LinkTraffic({
      read: (ids) => repos.links.findByIds(ids),
      clock,
      log,
      answerTimeoutMs: options.portSessionAnswerTimeoutMs ?? PORT_SESSION_ANSWER_TIMEOUT_MS,
    }),
  };
  stores.onCleanup(watchLinkState(ctx.linkTraffic as LinkTraffic, {db, signals, clock}));
  if (ctx.allowLocalEndpoints) {
    log(
      'WARNING: --allow-local-endpoints is on: webhook endpoints may use http:// and loopback or private ' +
        'addresses. Never run a shared emulator like this.',
    );
  }
  const imported = options.importFile ? await loadAtStart(ctx, options.importFile, 'replace') : undefined;
  const seeded = options.seed ? await loadAtStart(ctx, options.seed, 'merge') : undefined;
  const demo = options.demo ? await demoKey(ctx, dataDir) : undefined;
  const makingStartKey = options.startKey
    ? createKey(ctx, {
        orgId: ctx.orgId,
        name: options.startKey.name,
        createdBy: options.startKey.createdBy,
      }).then((made) => ({id: made.key.id, secret: made.secret}))
    : undefined;
  return {ctx, demo, makingStartKey, seeded, imported};
}

/**
 * Serves the app, writes emulator.json and starts the plugins; `stop` undoes it all in order and then runs
 * `cleanup` (the stores).
 */
async function serveEmulator(
  ctx: EmulatorContext,
  plugins: EmulatorPlugin[],
  o: {
    port: number;
    host: string;
    dataDir: string;
    cleanup: () => Promise<void>;
    serveOnly: boolean;
    /** The plugins start once this has settled too (the start key, made meanwhile). */
    pluginsAfter?: Promise<unknown>;
    /** `cleanup` removes the data dir (one made for this run). */
    removesDataDir: boolean;
  },
): Promise<{apiUrl: string; accountUrl: string; stop(): Promise<void>}> {
  const app = createApp(ctx, {plugins});
  const server = await listen(app.fetch, o.port, o.host);
  const address = server.address() as AddressInfo;
  const apiUrl = `http://${urlHostFor(address)}:${address.port}`;
  if (ctx.hosts.exposed) ctx.log(exposureWarning(address.address, address.port));
  // A browser on this machine opens the page at its own name, whose cookies no other local server receives.
  const accountUrl = ctx.hosts.ownNames ? localAccountUrl(address.port) : `${apiUrl}/account`;

  const started: EmulatorPlugin[] = [];
  let stopping: Promise<void> | undefined;
  let pluginsStarting: Promise<void> = Promise.resolve();
  const stop = () => {
    stopping ??= (async () => {
      await pluginsStarting;
      for (const plugin of started) plugin.closing?.();
      ctx.requestLog.close();
      ctx.linkTraffic?.closeAll();
      await closeServer(server);
      for (const plugin of started.reverse()) {
        await Promise.resolve(plugin.stop?.()).catch((err: unknown) =>
          ctx.log(`${plugin.name} did not stop cleanly: ${(err as Error).message}`),
        );
      }
      await ctx.auth.flush();
      // A data dir made for this run goes whole with the cleanup, runtime file and all.
      if (!o.removesDataDir) await removeRuntimeFile(o.dataDir);
      await o.cleanup();
    })();
    return stopping;
  };

  try {
    await writeRuntimeFile(o.dataDir, {
      api_url: apiUrl,
      account_url: accountUrl,
      admin_token: ctx.adminToken,
      pid: process.pid,
      data_dir: o.dataDir,
    });
  } catch (err) {
    await stop();
    throw err;
  }

  // Plugins start on the next turn of the event loop, once the caller has been told the emulator is
  // ready: their first work (the delivery worker's first pass and loading its HTTP client) would otherwise
  // run ahead of it. Requests are served meanwhile, and events recorded meanwhile are picked up by that
  // first pass.
  pluginsStarting = Promise.all([
    new Promise<void>((resolvePromise) => setImmediate(resolvePromise)),
    o.pluginsAfter?.catch(() => undefined),
  ])
    .then(async () => {
      for (const plugin of plugins) {
        if (stopping || o.serveOnly) return;
        await plugin.start?.(ctx);
        started.push(plugin);
      }
    })
    .catch((err: unknown) => {
      ctx.log(`the emulator stops: a part of it could not start: ${(err as Error).message}`);
      void stop();
    });

  return {apiUrl, accountUrl, stop};
}

/**
 * The host of the addresses handed out (the ready line, emulator.json): one a client on this machine reaches and
 * the CLI accepts for plain http. Listening on every interface, that is loopback, never `0.0.0.0`.
 */
function urlHostFor(address: AddressInfo): string {
  if (address.address === '0.0.0.0') return '127.0.0.1';
  if (address.address === '::') return '[::1]';
  return address.family === 'IPv6' ? `[${address.address}]` : address.address;
}

function exposureWarning(address: string, port: number): string {
  const where = address === '0.0.0.0' || address === '::' ? `every interface (${address})` : address;
  return (
    `WARNING: listening on ${where}, beyond this machine: anyone who can reach port ${port} here can read ` +
    'the mailbox (/account/mailbox) and so sign in to the account page as anyone, the org owner included, ' +
    'make keys and endpoints there, and try tokens on the control surface (/_emulator). Keep the default ' +
    '--host 127.0.0.1 unless this network is yours alone.'
  );
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

/** null: run without a vault key. */
async function loadVaultKey(
  options: StartEmulatorOptions,
  dataDir: string | undefined,
): Promise<Buffer | null> {
  if (options.noVaultKey) return null;
  return options.vaultKey ?? (await loadOrCreateVaultKey(dataDir));
}

function listen(
  fetch: (req: Request, env: unknown) => Response | Promise<Response>,
  port: number,
  host: string,
) {
  return new Promise<Server>((resolvePromise, reject) => {
    const server = serve({fetch, port, hostname: host}) as Server;
    server.on('clientError', answerClientError);
    acceptUpgrades(server);
    server.once('listening', () => {
      server.removeListener('error', reject);
      resolvePromise(server);
    });
    server.once('error', (err: NodeJS.ErrnoException) => {
      reject(
        err.code === 'EADDRINUSE'
          ? new EmulatorStartError(
              `port ${port} on ${host} is already in use; pick another with the \`port\` option`,
              'port_in_use',
            )
          : new EmulatorStartError(`could not listen on ${host}:${port}: ${err.message}`, 'start_failed'),
      );
    });
  });
}

/** Stops accepting, lets in-flight requests finish, then drops idle keep-alive connections. */
function closeServer(server: Server): Promise<void> {
  return new Promise((resolvePromise) => {
    server.close(() => resolvePromise());
    server.closeIdleConnections();
    // A client holding a connection open must not keep the emulator from stopping.
    const timer = setTimeout(() => server.closeAllConnections(), 5_000);
    timer.unref();
  });
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
    const where = options.databaseUrl
      ? 'Give every process sharing this database the same SVC_EMULATOR_VAULT_KEY: the one the first ' +
        "process was given, or the contents of its data dir's vault.key if it was given none"
      : options.vaultKey
        ? `Start it with the vault key it was first started with (the one in ${join(dataDir, 'vault.key')}, unless another was given)`
        : `Put back the vault.key its data dir (${dataDir}) was first given, or start with a fresh \`dataDir\` option`;
    throw new EmulatorStartError(
      `this process's vault key is not the one the database's signing secrets were stored under, so it could sign no delivery. ${where}.`,
      'vault_key_mismatch',
    );
  }
}
