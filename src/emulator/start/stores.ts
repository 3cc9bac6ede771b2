// The storage an emulator runs on: its database (PGlite or PostgreSQL, write-tracked for the read cache), word
// of other processes sharing a PostgreSQL, and the vault key, opened together and closed together.
import {rm} from 'node:fs/promises';
import type {StartEmulatorOptions} from './options.js';
import {makeDataDirPrivate} from '../data-dir.js';
import {openStorage} from '../db/open.js';
import {type DatabaseSignals, listenToDatabase} from '../db/notify.js';
import {trackWrites, type WriteTrackedDatabase} from '../db/read-cache.js';
import {CACHED_TABLES, NOTICED_TABLES} from '../db/tables.js';
import {loadOrCreateVaultKey} from '../vault-key.js';

/** The storage an emulator runs on, opened: its database (write-tracked), word of other processes, the vault key. */
export interface Stores {
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

export async function openStores(
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
  const sync = signals
    ? async () => {
        await signals.sync();
      }
    : undefined;
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

/** null: run without a vault key. */
async function loadVaultKey(
  options: StartEmulatorOptions,
  dataDir: string | undefined,
): Promise<Buffer | null> {
  if (options.noVaultKey) return null;
  return options.vaultKey ?? (await loadOrCreateVaultKey(dataDir));
}
