// The emulator as a library: startEmulator() opens storage, serves the API and the control surface, and stops cleanly.
import {randomBytes} from 'node:crypto';
import {existsSync} from 'node:fs';
import {mkdtemp, rm} from 'node:fs/promises';
import type {Server} from 'node:http';
import type {AddressInfo} from 'node:net';
import {tmpdir} from 'node:os';
import {join, resolve} from 'node:path';
import {serve} from '@hono/node-server';
import type {SignatureClock} from '../src/definitions.js';
import {createApp} from './app.js';
import {type DemoKey, demoKey} from './demo-key.js';
import {createKey} from './ops/keys.js';
import {DataDirError, makeDataDirPrivate} from './data-dir.js';
import {Authenticator} from './auth/authenticator.js';
import {AuthFailureLimiter, type RateLimitOptions} from './auth/rate-limiter.js';
import {type Clock, manualClock, realClock} from './clock.js';
import type {EmulatorContext, EmulatorPlugin} from './context.js';
import {EmulatorControl} from './control-client.js';
import type {Database} from './db/database.js';
import {openStorage} from './db/open.js';
import {type DatabaseSignals, listenToDatabase, SIGNAL_CHANNELS} from './db/notify.js';
import {ReadCache, trackWrites} from './db/read-cache.js';
import {createRepositories, type Repositories} from './db/repositories.js';
import {type Resolver, systemResolver} from './net/address-policy.js';
import {answerClientError} from './net/client-error.js';
import {isProcessAlive, readRuntimeFile, removeRuntimeFile, writeRuntimeFile} from './runtime-file.js';
import {openSharedManualClock, type SharedManualClock} from './shared-clock.js';
import {createVault} from './vault.js';
import {createDeliveryPlugin, type DeliveryPluginOptions} from './delivery/plugin.js';
import {loadOrCreateVaultKey} from './vault-key.js';

export {createApp} from './app.js';
export {EmulatorControl, EmulatorControlError} from './control-client.js';
export type {EmulatorContext, EmulatorPlugin} from './context.js';
export {checkEndpointHost, checkEndpointUrl, isPublicAddress, type Resolver} from './net/address-policy.js';
export {OperationError, type Problem} from './ops/errors.js';
export {DEFAULT_RATE_LIMIT} from './auth/rate-limiter.js';
export {readRuntimeFile, runtimeFilePath, type RuntimeInfo} from './runtime-file.js';

export interface StartEmulatorOptions {
  /** Default 4010; 0 picks a free port. */
  port?: number;
  host?: string;
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
  log?: (line: string) => void;
  /** DNS resolution for endpoint checks and deliveries (tests pass a fake one). */
  lookup?: Resolver;
  /**
   * How the account page spells the CLI in the commands it suggests: the CLI passes how it was itself run
   * (`svc`, `npx svc`, or node and its path). Default `npx svc`, which runs in a project that depends on svc.
   */
  svcCommand?: string;
  /** Delivery engine tuning (tests shorten the attempt timeout; benchmarks size the lanes). */
  delivery?: DeliveryPluginOptions;
}

export interface RunningEmulator {
  apiUrl: string;
  accountUrl: string;
  adminToken: string;
  dataDir: string;
  orgId: string;
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
  stop(): Promise<void>;
}

export class EmulatorStartError extends Error {
  constructor(
    message: string,
    readonly code: 'already_running' | 'port_in_use' | 'data_dir_not_private' | 'start_failed',
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
  return [createDeliveryPlugin({signatureClock: options.signatureClock, ...options.delivery})];
}

/** The tables whose rows the read cache holds (see createRepositories). */
const CACHED_TABLES = ['orgs', 'api_keys', 'webhook_endpoints'] as const;

export async function startEmulator(options: StartEmulatorOptions = {}): Promise<RunningEmulator> {
  if (!options.dataDir && !options.inMemory) {
    throw new TypeError('startEmulator needs a dataDir, or inMemory: true');
  }
  const ownsDataDir = !options.dataDir;
  const dataDir = resolve(options.dataDir ?? (await mkdtemp(join(tmpdir(), 'svc-emulator-'))));
  // A start that fails leaves nothing behind: a data dir it made is removed whole (an existing one keeps
  // what it held; openStorage removes a database it had only begun to make).
  const madeHere = ownsDataDir || !existsSync(dataDir);
  try {
    return await startIn(dataDir, ownsDataDir, options);
  } catch (err) {
    if (madeHere) await rm(dataDir, {recursive: true, force: true});
    throw err;
  }
}

async function startIn(
  dataDir: string,
  ownsDataDir: boolean,
  options: StartEmulatorOptions,
): Promise<RunningEmulator> {
  const log = options.log ?? (() => undefined);
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
  // Again, for what opening the storage just wrote there (the embedded database's files).
  await makeDataDirPrivate(dataDir).catch(async (err: unknown) => {
    await storage.db.close().catch(() => undefined);
    await storage.cleanup();
    throw err;
  });
  let signals: DatabaseSignals | undefined;
  let sharedClock: SharedManualClock | undefined;
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
  // Every write bumps a generation, so the read cache below can never serve what a write changed. On a shared
  // PostgreSQL a write also returns only once the other processes have been sent word of it.
  const sync = signals ? signals.sync.bind(signals) : undefined;
  const db = trackWrites(storage.db, CACHED_TABLES, {afterWrite: sync});
  const cleanupStorage = async () => {
    await storage.endStartup?.();
    sharedClock?.close();
    await signals?.close();
    // In memory, nothing outlives the stop: the copy is dropped without PostgreSQL's shutdown checkpoint.
    if (!storage.throwaway) await db.close().catch(() => undefined);
    await storage.cleanup();
    if (ownsDataDir) await rm(dataDir, {recursive: true, force: true});
  };

  try {
    const start = options.clockStart ?? new Date();
    if (options.clock === 'manual' && signals) {
      sharedClock = await openSharedManualClock(db, signals, start, log);
    }
    const clock: Clock = sharedClock ?? (options.clock === 'manual' ? manualClock(start) : realClock());
    // On a shared PostgreSQL the caches hold only while word of other processes' writes can reach this one.
    const live = signals ? () => (signals as DatabaseSignals).live : undefined;
    const repos = createRepositories(db, new ReadCache(db, {trusted: live}));
    if (vaultKey.status === 'rejected') throw vaultKey.reason;
    const vault = createVault(vaultKey.value);
    const orgId = await defaultOrg(repos, clock, options.demo ?? false);
    const adminToken = `adm_${randomBytes(24).toString('base64url')}`;
    const auth = new Authenticator(repos.keys, clock, log, {trusted: live});
    if (signals) {
      const forgetAll = () => {
        db.invalidate();
        auth.forgetAll();
      };
      signals.on(SIGNAL_CHANNELS.change, forgetAll);
      signals.onReconnect(forgetAll);
    }
    const ctx: EmulatorContext = {
      db,
      repos,
      clock,
      vault,
      auth,
      limiter: new AuthFailureLimiter(clock, options.rateLimit),
      controlLimiter: new AuthFailureLimiter(clock, options.rateLimit),
      orgId,
      adminToken,
      allowLocalEndpoints: options.allowLocalEndpoints ?? false,
      lookup: options.lookup ?? systemResolver,
      log,
      svc: options.svcCommand ?? 'npx svc',
      signals,
      endpointDeletions: new Set(),
    };
    if (ctx.allowLocalEndpoints) {
      log(
        'WARNING: --allow-local-endpoints is on: webhook endpoints may use http:// and loopback or private ' +
          'addresses. Never run a shared emulator like this.',
      );
    }
    const demo = options.demo ? await demoKey(ctx, dataDir) : undefined;
    const made = options.startKey
      ? await createKey(ctx, {orgId, name: options.startKey.name, createdBy: options.startKey.createdBy})
      : undefined;
    await storage.endStartup?.();
    const plugins = defaultPlugins(options);
    const app = createApp(ctx, {plugins});
    const server = await listen(app.fetch, options.port ?? 4010, options.host ?? '127.0.0.1');
    const address = server.address() as AddressInfo;
    const hostForUrl = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    const apiUrl = `http://${hostForUrl}:${address.port}`;
    const accountUrl = `${apiUrl}/account`;

    const started: EmulatorPlugin[] = [];
    let stopping: Promise<void> | undefined;
    let pluginsStarting: Promise<void> = Promise.resolve();
    const stop = () => {
      stopping ??= (async () => {
        await pluginsStarting;
        for (const plugin of started) plugin.closing?.();
        await closeServer(server);
        for (const plugin of started.reverse()) {
          await Promise.resolve(plugin.stop?.()).catch((err: unknown) =>
            log(`${plugin.name} did not stop cleanly: ${(err as Error).message}`),
          );
        }
        await ctx.auth.flush();
        await removeRuntimeFile(dataDir);
        await cleanupStorage();
      })();
      return stopping;
    };

    try {
      await writeRuntimeFile(dataDir, {
        api_url: apiUrl,
        account_url: accountUrl,
        admin_token: adminToken,
        pid: process.pid,
        data_dir: dataDir,
      });
    } catch (err) {
      await stop();
      throw err;
    }

    // Plugins start on the next turn of the event loop, once the caller has been told the emulator is
    // ready: their first work (the delivery worker's first pass, ~100-250 ms of first-time queries, and
    // loading its HTTP client) would otherwise run ahead of it. Requests are served meanwhile, and events
    // recorded meanwhile are picked up by that first pass.
    pluginsStarting = new Promise<void>((resolvePromise) => setImmediate(resolvePromise))
      .then(async () => {
        for (const plugin of plugins) {
          if (stopping) return;
          await plugin.start?.(ctx);
          started.push(plugin);
        }
      })
      .catch((err: unknown) => {
        log(`the emulator stops: a part of it could not start: ${(err as Error).message}`);
        void stop();
      });

    return {
      apiUrl,
      accountUrl,
      adminToken,
      dataDir,
      orgId,
      clock,
      db,
      repos,
      control: new EmulatorControl({url: apiUrl, adminToken}),
      context: ctx,
      demoKey: demo,
      startKey: made ? {id: made.key.id, secret: made.secret} : undefined,
      stop,
    };
  } catch (err) {
    await cleanupStorage();
    throw err;
  }
}

async function defaultOrg(repos: Repositories, clock: Clock, demo: boolean): Promise<string> {
  const known = await repos.meta.get('default_org_id');
  if (known && (await repos.orgs.get(known))) {
    if (demo) await repos.orgs.rename(known, 'Demo org');
    return known;
  }
  const org = await repos.orgs.create(demo ? 'Demo org' : 'Emulator org', clock.now());
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
    server.once('listening', () => {
      server.removeListener('error', reject);
      resolvePromise(server);
    });
    server.once('error', (err: NodeJS.ErrnoException) => {
      reject(
        err.code === 'EADDRINUSE'
          ? new EmulatorStartError(
              `port ${port} on ${host} is already in use; pick another with --port`,
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
