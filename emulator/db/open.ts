// Opens the emulator's storage: a PGlite data dir (default), a throwaway PGlite, or a real PostgreSQL.
import {existsSync} from 'node:fs';
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {type Database, migrate, wrapPgPool} from './database.js';
import {openPGliteThread} from './pglite-thread.js';
import {copyTemplate, ensureTemplate, PGDATA} from './template.js';

export interface StorageOptions {
  /** Directory holding pgdata/ (PGlite). Ignored for the database when databaseUrl is given. */
  dataDir: string;
  inMemory?: boolean;
  databaseUrl?: string;
  /** Where a PGlite template is made and kept when the package has none built. */
  templateCacheDir?: string;
}

export interface OpenedStorage {
  db: Database;
  /** Releases whatever opening created besides the database (a throwaway copy). */
  cleanup(): Promise<void>;
}

export async function openStorage(options: StorageOptions): Promise<OpenedStorage> {
  if (options.databaseUrl) {
    const {default: pg} = await import('pg');
    const pool = new pg.Pool({connectionString: options.databaseUrl, max: 10});
    // An idle client losing its server must not crash the emulator; the next query reports it instead.
    pool.on('error', () => undefined);
    const db = wrapPgPool(pool);
    try {
      await migrate(db);
    } catch (err) {
      await db.close();
      throw err;
    }
    return {db, cleanup: async () => undefined};
  }

  if (options.inMemory) {
    // A copy of the template in a temporary directory opens faster than loading it into memory
    // (measured: ~0.7 s against ~1.1 s for loadDataDir), and is deleted when the emulator stops.
    const scratch = await mkdtemp(join(tmpdir(), 'svc-emulator-mem-'));
    const pgdata = join(scratch, PGDATA);
    try {
      await copyTemplate(await ensureTemplate(options.templateCacheDir), pgdata);
      const db = await openPGliteThread(pgdata);
      try {
        await migrate(db);
      } catch (err) {
        await db.close().catch(() => undefined);
        throw err;
      }
      return {db, cleanup: () => rm(scratch, {recursive: true, force: true})};
    } catch (err) {
      await rm(scratch, {recursive: true, force: true});
      throw err;
    }
  }

  const pgdata = join(options.dataDir, PGDATA);
  if (!existsSync(join(pgdata, 'PG_VERSION'))) {
    await rm(pgdata, {recursive: true, force: true});
    await copyTemplate(await ensureTemplate(options.templateCacheDir), pgdata);
  }
  const db = await openPGliteThread(pgdata);
  try {
    await migrate(db);
  } catch (err) {
    await db.close();
    throw err;
  }
  return {db, cleanup: async () => undefined};
}
