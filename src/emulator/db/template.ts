// A migrated PGlite data directory made once (at build time, or lazily into the user cache) and copied
// for every fresh data dir: PGlite's initdb costs seconds, a copy costs milliseconds.
//
// The template travels inside the npm package, and a packer keeps neither empty folders (PostgreSQL needs
// fourteen of them) nor sparse files. So the template carries a manifest of every folder and file it must
// hold, its files are stored without their trailing zero bytes (the 16 MB WAL segment holds a few hundred
// bytes of records), and a copy recreates the folders and restores each file's length. A template whose
// files do not match its manifest is never used: it is rebuilt where the caller keeps templates.
import {createHash, randomBytes} from 'node:crypto';
import {
  closeSync,
  cpSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
  truncateSync,
} from 'node:fs';
import {mkdir, readFile, rename, rm, writeFile} from 'node:fs/promises';
import {createRequire} from 'node:module';
import {basename, dirname, join, relative, sep} from 'node:path';
import {fileURLToPath} from 'node:url';
import {isProcessAlive, PGDATA} from '../../emulator-layout/runtime.js';
import {listMigrations, migrate, wrapPGlite} from './database.js';
import {templateCacheDir} from '../../user-dirs.js';
import {StartOptionError} from '../start-option.js';
import {
  TEMPLATE_META,
  type TemplateManifest,
  type TemplateMeta,
  readTemplateMeta,
  templateFilesProblem,
} from '../../emulator-layout/template-manifest.js';
import {openPGlite} from './pglite.js';

/** Part of the key: a change in how templates are made must replace the ones already made. */
const TEMPLATE_FORMAT =
  'postgres database only; manifest; trailing zeros trimmed; one WAL segment; notify triggers disabled';

// PostgreSQL's initdb makes template0 and template1 for CREATE DATABASE, which the emulator never
// runs. Dropping them leaves 430 files instead of 1,050 to copy into every fresh data dir.
const DROP_TEMPLATE_DATABASES = [
  'ALTER DATABASE template1 IS_TEMPLATE false',
  'DROP DATABASE template1',
  'ALTER DATABASE template0 IS_TEMPLATE false',
  'DROP DATABASE template0',
];

// The triggers that tell other processes sharing a PostgreSQL of a write (db/notify.ts) have no one to tell on
// PGlite, which is one process; the first of them to fire would load PL/pgSQL, a tenth of an in-memory start.
// A template is only ever PGlite's, so there they are disabled (still defined, for later migrations).
const DISABLE_NOTIFY_TRIGGERS = `DO $$
DECLARE t record;
BEGIN
  FOR t IN SELECT tgname, tgrelid::regclass AS rel FROM pg_trigger WHERE tgfoid = 'svc_notify_change'::regproc LOOP
    EXECUTE format('ALTER TABLE %s DISABLE TRIGGER %I', t.rel, t.tgname);
  END LOOP;
END $$`;

// initdb and the migrations fill most of the first WAL segment. Switching to a fresh segment and
// checkpointing leaves only the new one, holding the checkpoint record and little else; with recycling off
// the old segment is deleted instead of being renamed into a future one, full of old records.
const COMPACT_WAL = ['SET wal_recycle = off', 'SELECT pg_switch_wal()', 'CHECKPOINT'];

export class TemplateError extends StartOptionError {
  constructor(message: ConstructorParameters<typeof StartOptionError>[0]) {
    super(message);
    this.name = 'TemplateError';
  }
}

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
  return {built: root ? join(root, 'dist', 'src', 'emulator', 'pg-template') : undefined};
}

/**
 * Why the template at dir cannot be used for key, or undefined when it can: its manifest names the current
 * key, and every file the manifest lists is there with the length it was stored with. Folders are not
 * checked, since a copy makes the missing ones.
 */
export async function templateProblem(dir: string, key: string): Promise<string | undefined> {
  const meta = await readTemplateMeta(dir);
  if (!meta) return `${join(dir, TEMPLATE_META)} is missing or unreadable`;
  if (meta.key !== key) return 'it was made for other migrations or another PGlite';
  return templateFilesProblem(dir);
}

/** Bytes of the file without its trailing zeros, read from the end a block at a time. */
function lengthWithoutTrailingZeros(file: string, size: number): number {
  const fd = openSync(file, 'r');
  try {
    const block = Buffer.alloc(64 * 1024);
    let end = size;
    while (end > 0) {
      const start = Math.max(0, end - block.length);
      const n = readSync(fd, block, 0, end - start, start);
      for (let i = n - 1; i >= 0; i--) if (block[i] !== 0) return start + i + 1;
      end = start;
    }
    return 0;
  } finally {
    closeSync(fd);
  }
}

/** Lists every folder and file under pgdata and trims each file's trailing zeros in place. */
function compactAndDescribe(pgdata: string): TemplateManifest {
  const dirs: string[] = [];
  const files: Record<string, [number, number]> = {};
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, {withFileTypes: true})) {
      const path = join(dir, entry.name);
      const rel = relative(pgdata, path).split(sep).join('/');
      if (entry.isDirectory()) {
        dirs.push(rel);
        walk(path);
      } else if (entry.isFile()) {
        const size = statSync(path).size;
        const stored = lengthWithoutTrailingZeros(path, size);
        if (stored < size) truncateSync(path, stored);
        files[rel] = [size, stored];
      }
    }
  };
  walk(pgdata);
  dirs.sort();
  return {dirs, files};
}

/** Where a template for dir is built by the process pid, beside dir: `<dir>.tmp-<pid>-<random>`. */
const buildFolderOf = (dir: string, pid: number) => `${dir}.tmp-${pid}-${randomBytes(4).toString('hex')}`;
const BUILD_FOLDER = /\.tmp-(\d+)-[0-9a-f]{8}$/;

/**
 * Removes the build folders beside dir that a process left when it was killed or interrupted mid-build (its
 * `finally` never ran): those whose process is gone. A build under way in another process is left alone.
 */
export function removeAbandonedBuilds(dir: string): string[] {
  const parent = dirname(dir);
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const pid = name.startsWith(`${basename(dir)}.tmp-`) ? BUILD_FOLDER.exec(name)?.[1] : undefined;
    if (pid === undefined || isProcessAlive(Number(pid))) continue;
    rmSync(join(parent, name), {recursive: true, force: true});
    removed.push(join(parent, name));
  }
  return removed;
}

/** Builds a migrated template at dir. Built beside it and renamed into place, so readers never see half of one. */
export async function prepareTemplate(dir: string, key?: string): Promise<void> {
  const k = key ?? (await templateKey());
  const tmp = buildFolderOf(dir, process.pid);
  await mkdir(tmp, {recursive: true});
  try {
    const pg = await openPGlite(join(tmp, PGDATA));
    const db = wrapPGlite(pg);
    try {
      await migrate(db);
      await db.query(DISABLE_NOTIFY_TRIGGERS);
      for (const statement of DROP_TEMPLATE_DATABASES) await db.query(statement);
      for (const statement of COMPACT_WAL) await db.query(statement);
    } finally {
      await db.close();
    }
    const manifest = compactAndDescribe(join(tmp, PGDATA));
    await writeFile(join(tmp, TEMPLATE_META), `${JSON.stringify({key: k, manifest})}\n`);
    await rm(dir, {recursive: true, force: true});
    await mkdir(dirname(dir), {recursive: true});
    await rename(tmp, dir).catch(async (err: NodeJS.ErrnoException) => {
      // Another process finished first; its template is as good as ours.
      if ((await templateProblem(dir, k)) !== undefined) throw err;
    });
  } finally {
    await rm(tmp, {recursive: true, force: true});
  }
}

/**
 * The directory of a valid template: the package's own (packaged), else one kept in cacheDir (made there once;
 * the user cache by default, as the CLI's), so no start leaves a template behind in the temp dir.
 */
export async function ensureTemplate(
  cacheDir: string = templateCacheDir(),
  packaged: string | undefined = templateLocations().built,
): Promise<string> {
  const key = await templateKey();
  removeAbandonedBuilds(cacheDir);
  if (packaged && (await templateProblem(packaged, key)) === undefined) return packaged;
  if ((await templateProblem(cacheDir, key)) === undefined) return cacheDir;
  const target = cacheDir;
  try {
    await prepareTemplate(target, key);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new TemplateError({
      option: 'inMemory',
      says: (name) =>
        `the emulator's database template could not be made in ${target} (${why}); check that the folder is ` +
        `writable and the disk has room, or use ${name}`,
    });
  }
  return target;
}

/**
 * A template's data directory as it is held in memory: its folders, and its files laid end to end in one buffer,
 * each at its full length (the tails stored without their zeros are zeros here).
 */
export interface TemplateContents {
  dirs: string[];
  files: {path: string; offset: number; size: number}[];
  bytes: Uint8Array;
}

/**
 * Reads the template's data directory for a database that lives in memory only: nothing is written to disk,
 * so an in-memory emulator costs neither the copy of its files nor their removal when it stops. One buffer
 * for every file, read straight into place, and files holding only zeros are not read at all.
 */
export function readTemplate(template: string): TemplateContents {
  const meta = JSON.parse(readFileSync(join(template, TEMPLATE_META), 'utf8')) as TemplateMeta;
  const pgdata = join(template, PGDATA);
  const entries = Object.entries(meta.manifest.files);
  const total = entries.reduce((sum, [, [size]]) => sum + size, 0);
  const bytes = new Uint8Array(total);
  const files: TemplateContents['files'] = [];
  let offset = 0;
  for (const [path, [size, stored]] of entries) {
    files.push({path, offset, size});
    if (stored > 0) {
      const fd = openSync(join(pgdata, ...path.split('/')), 'r');
      try {
        let done = 0;
        while (done < stored) {
          const n = readSync(fd, bytes, offset + done, stored - done, done);
          if (n === 0)
            throw new TemplateError(
              `${path} in the database template ${template} is shorter than its manifest says`,
            );
          done += n;
        }
      } finally {
        closeSync(fd);
      }
    }
    offset += size;
  }
  return {dirs: meta.manifest.dirs, files, bytes};
}

/**
 * Copies the template's data directory to pgdataDir (which must not exist yet): the stored files, then the
 * folders a packer may have dropped, then each file's full length (the zeros come back as a sparse tail).
 * Synchronously on purpose: for its ~450 files the synchronous copy measured twice as fast as
 * fs.promises.cp, and nothing else is waiting while an emulator starts.
 */
export async function copyTemplate(template: string, pgdataDir: string): Promise<void> {
  const meta = JSON.parse(readFileSync(join(template, TEMPLATE_META), 'utf8')) as TemplateMeta;
  cpSync(join(template, PGDATA), pgdataDir, {recursive: true, errorOnExist: true, force: false});
  for (const dir of meta.manifest.dirs) mkdirSync(join(pgdataDir, ...dir.split('/')), {recursive: true});
  for (const [path, [size, stored]] of Object.entries(meta.manifest.files)) {
    if (size !== stored) truncateSync(join(pgdataDir, ...path.split('/')), size);
  }
}
