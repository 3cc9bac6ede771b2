// A migrated PGlite data directory made once (at build time, or lazily into the user cache) and copied
// for every fresh data dir: PGlite's initdb costs seconds, a copy costs milliseconds.
import {createHash, randomBytes} from 'node:crypto';
import {mkdir, mkdtemp, readFile, rename, rm, writeFile} from 'node:fs/promises';
import {cpSync, existsSync} from 'node:fs';
import {createRequire} from 'node:module';
import {tmpdir} from 'node:os';
import {dirname, join} from 'node:path';
import {fileURLToPath} from 'node:url';
import {listMigrations, migrate, wrapPGlite} from './database.js';
import {openPGlite} from './pglite.js';

const TEMPLATE_META = 'template.json';
export const PGDATA = 'pgdata';
/** Part of the key: a change in how templates are made must replace the ones already made. */
const TEMPLATE_FORMAT = 'postgres database only';

// PostgreSQL's initdb makes template0 and template1 for CREATE DATABASE, which the emulator never
// runs. Dropping them leaves 430 files instead of 1,050 to copy into every fresh data dir (measured
// ~120 ms against ~300-700 ms on a busy machine).
const DROP_TEMPLATE_DATABASES = [
  'ALTER DATABASE template1 IS_TEMPLATE false',
  'DROP DATABASE template1',
  'ALTER DATABASE template0 IS_TEMPLATE false',
  'DROP DATABASE template0',
];

/** Changes whenever the migrations or the PGlite build change, so a stale template is never used. */
export async function templateKey(): Promise<string> {
  const hash = createHash('sha256');
  hash.update(`pglite ${await pgliteVersion()}\n${TEMPLATE_FORMAT}\n`);
  for (const m of await listMigrations()) hash.update(`${m.version}\n${m.sql}\n`);
  return hash.digest('hex').slice(0, 16);
}

async function pgliteVersion(): Promise<string> {
  // The package does not export its package.json, so find it above its entry point.
  const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const root = packageRoot(dirname(entry));
  if (!root) return 'unknown';
  return (JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as {version: string}).version;
}

function packageRoot(from = dirname(fileURLToPath(import.meta.url))): string | undefined {
  let dir = from;
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** Where build time puts the template: inside the package. */
export function templateLocations(): {built?: string} {
  const root = packageRoot();
  return {built: root ? join(root, 'dist', 'emulator', 'pg-template') : undefined};
}

async function isValidTemplate(dir: string, key: string): Promise<boolean> {
  try {
    const meta = JSON.parse(await readFile(join(dir, TEMPLATE_META), 'utf8')) as {key?: string};
    return meta.key === key && existsSync(join(dir, PGDATA, 'PG_VERSION'));
  } catch {
    return false;
  }
}

/** Builds a migrated template at dir. Built beside it and renamed into place, so readers never see half of one. */
export async function prepareTemplate(dir: string, key?: string): Promise<void> {
  const k = key ?? (await templateKey());
  const tmp = `${dir}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  await mkdir(tmp, {recursive: true});
  try {
    const pg = await openPGlite(join(tmp, PGDATA));
    const db = wrapPGlite(pg);
    try {
      await migrate(db);
      for (const statement of DROP_TEMPLATE_DATABASES) await db.query(statement);
      await db.query('CHECKPOINT');
    } finally {
      await db.close();
    }
    await writeFile(join(tmp, TEMPLATE_META), `${JSON.stringify({key: k})}\n`);
    await rm(dir, {recursive: true, force: true});
    await mkdir(dirname(dir), {recursive: true});
    await rename(tmp, dir).catch(async (err: NodeJS.ErrnoException) => {
      // Another process finished first; its template is as good as ours.
      if (!(await isValidTemplate(dir, k))) throw err;
    });
  } finally {
    await rm(tmp, {recursive: true, force: true});
  }
}

/**
 * The directory of a valid template: the package's own, else one kept in cacheDir (made there once; the CLI
 * passes the user cache), else one made for this call in a fresh temporary directory.
 */
export async function ensureTemplate(cacheDir?: string): Promise<string> {
  const key = await templateKey();
  const {built} = templateLocations();
  if (built && (await isValidTemplate(built, key))) return built;
  const cache = cacheDir ?? join(await mkdtemp(join(tmpdir(), 'svc-emulator-template-')), 'template');
  if (await isValidTemplate(cache, key)) return cache;
  await prepareTemplate(cache, key);
  return cache;
}

/**
 * Copies the template's data directory to pgdataDir (which must not exist yet). Synchronously on
 * purpose: for its ~1,000 files the synchronous copy measured twice as fast as fs.promises.cp, and
 * nothing else is waiting while an emulator starts.
 */
export async function copyTemplate(template: string, pgdataDir: string): Promise<void> {
  cpSync(join(template, PGDATA), pgdataDir, {recursive: true, errorOnExist: true, force: false});
}
