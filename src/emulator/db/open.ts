// Opens the emulator's storage: a PGlite data dir (default), a throwaway PGlite, or a real PostgreSQL.
import {existsSync} from 'node:fs';
import {rm} from 'node:fs/promises';
import {join} from 'node:path';
import {type Database, migrate, wrapPgPool} from './database.js';
import {openPGliteThread, openPGliteThreadInMemory} from './pglite-thread.js';
import {PGDATA} from '../../emulator-layout/runtime.js';
import {copyTemplate, ensureTemplate} from './template.js';
import {StartOptionError} from '../start-option.js';

export interface StorageOptions {
  /** Directory holding pgdata/ (PGlite). Ignored for the database when databaseUrl is given. */
  dataDir: string;
  inMemory?: boolean;
  databaseUrl?: string;
  /** Where a PGlite template is made and kept when the package has none built. */
  templateCacheDir?: string;
  /**
   * PostgreSQL only: keep holding the start-up lock after migrating, until endStartup() (or close) is called, so
   * the caller's first writes (the default org) are made by one starting process at a time.
   */
  holdStartupLock?: boolean;
}

export interface OpenedStorage {
  db: Database;
  /** The database is held in memory only: cleanup() ends it without a clean shutdown. */
  throwaway?: boolean;
  /** Releases whatever opening created besides the database, and a throwaway database itself. */
  cleanup(): Promise<void>;
  /**
   * PostgreSQL only: other processes starting on the same database wait until this is called, so the first one
   * migrates and makes the default org alone. Call it once start-up has written what it needs.
   */
  endStartup?(): Promise<void>;
}

/** Held by an emulator process while it migrates a shared PostgreSQL and makes its first rows. */
const STARTUP_LOCK = 0x5356_4301;

export async function openStorage(options: StorageOptions): Promise<OpenedStorage> {
  if (options.databaseUrl) {
    const {default: pg} = await import('pg');
    const pool = new pg.Pool({connectionString: options.databaseUrl, max: 10});
    // An idle client losing its server must not crash the emulator; the next query reports it instead.
    pool.on('error', () => undefined);
    const pooled = wrapPgPool(pool);
    let endStartup: (() => Promise<void>) | undefined;
    // Closing also lets go of the lock: the pool waits for every client it lent.
    const db: Database = {
      ...pooled,
      close: async () => {
        await endStartup?.();
        await pooled.close();
      },
    };
    try {
      const holder = await pool.connect();
      let released = false;
      endStartup = async () => {
        if (released) return;
        released = true;
        try {
          await holder.query('SELECT pg_advisory_unlock($1)', [STARTUP_LOCK]);
          holder.release();
        } catch {
          // A connection that cannot unlock is closed, which unlocks.
          holder.release(true);
        }
      };
      await holder.query('SELECT pg_advisory_lock($1)', [STARTUP_LOCK]);
      await migrate(db);
      if (!options.holdStartupLock) await endStartup();
    } catch (err) {
      await db.close();
      throw err;
    }
    return {db, cleanup: async () => undefined, endStartup};
  }

  if (options.inMemory) {
    // PGlite's in-memory file system, filled from the template: nothing is written to disk, so the start costs
    // no copy of the template's files and the stop no removal of them (`node bench/run.js emulator-start`
    // times it beside reopening a data dir).
    // No migrations to run: a template is only used when it was made with exactly these (its key says so).
    const db = await openPGliteThreadInMemory(() => ensureTemplate(options.templateCacheDir));
    return {db, throwaway: true, cleanup: () => db.discard()};
  }

  const pgdata = join(options.dataDir, PGDATA);
  // A database this start makes is removed again if the start fails, so no half-made one is left to reopen.
  const fresh = !existsSync(join(pgdata, 'PG_VERSION'));
  try {
    if (fresh) {
      await rm(pgdata, {recursive: true, force: true});
      await copyTemplate(await ensureTemplate(options.templateCacheDir), pgdata);
    }
    const db = await openPGliteThread(pgdata).catch((err: unknown) => {
      throw new StartOptionError(
        fresh
          ? `a new database made in ${pgdata} could not be opened (${messageOf(err)}); the emulator's ` +
              'database template is damaged: reinstall svc, or remove the template kept in the user cache'
          : {
              option: 'inMemory',
              says: (name) =>
                `the database in ${pgdata} could not be opened (${messageOf(err)}); if it is damaged, move the ` +
                `data dir away and start again (or use ${name})`,
            },
      );
    });
    try {
      await migrate(db);
    } catch (err) {
      await db.close().catch(() => undefined);
      throw err;
    }
    return {db, cleanup: async () => undefined};
  } catch (err) {
    if (fresh) await rm(pgdata, {recursive: true, force: true});
    throw err;
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
