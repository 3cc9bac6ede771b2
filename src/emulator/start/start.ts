// startEmulator: claims the data dir, opens the stores, builds the context, serves, and hands back the running
// emulator; a start that fails leaves nothing behind. The package's face (../index.ts) exports it.
import {existsSync, mkdtempSync} from 'node:fs';
import {rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join, resolve} from 'node:path';
import {EmulatorControl} from '@svc/client';
import {isProcessAlive, readRuntimeFile} from '../../emulator-layout/runtime.js';
import {displayText, EMULATOR_DEFAULT_PORT} from '../../definitions.js';
import {asyncDispose} from '../async-dispose.js';
import {DataDirError, makeDataDirPrivate} from '../data-dir.js';
import {createHostPolicy, type HostPolicy, HostNameError} from '../net/host-policy.js';
import {exportSnapshot} from '../state/snapshot.js';
import {MembershipRepository} from '../web/db/memberships.js';
import {createContext} from './context.js';
import {removeAtExit} from './exit-cleanup.js';
import {EmulatorStartError, type RunningEmulator, type StartEmulatorOptions} from './options.js';
import {serveEmulator} from './serve.js';
import {openStores, type Stores} from './stores.js';

/**
 * Starts an emulator (see StartEmulatorOptions) and resolves once it answers, with what a caller holds of it
 * (RunningEmulator). A start that fails throws EmulatorStartError, naming why, and leaves nothing behind.
 */
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
  // A data dir made for this run (emulator.json and the admin token in it) goes with the process too, when it
  // exits or is interrupted (SIGINT, SIGTERM) without stopping the emulator.
  const forget = ownsDataDir ? removeAtExit(dataDir) : () => undefined;
  try {
    return await startIn(dataDir, ownsDataDir, options, hosts, forget);
  } catch (err) {
    if (madeHere) await rm(dataDir, {recursive: true, force: true});
    forget();
    throw err;
  }
}

async function startIn(
  dataDir: string,
  ownsDataDir: boolean,
  options: StartEmulatorOptions,
  hosts: HostPolicy,
  /** Called once the stores are closed (and a data dir made for this run removed). */
  afterCleanup: () => void,
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
    const served = await serveEmulator(ctx, {
      port: options.port ?? EMULATOR_DEFAULT_PORT,
      host: options.host ?? '127.0.0.1',
      dataDir,
      cleanup: () => stores.cleanup().then(afterCleanup),
      serveOnly: options.serveOnly ?? false,
      engineAfter: makingStartKey,
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
      orgId: ctx.current.orgId,
      owned: (await new MembershipRepository(ctx.db).members(ctx.current.orgId)).some(
        (m) => m.role === 'owner',
      ),
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
    if (err instanceof DataDirError) throw new EmulatorStartError(err.about, 'data_dir_not_private');
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
