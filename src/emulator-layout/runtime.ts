// <dataDir>/emulator.json tells control commands where a running emulator listens and its admin token: the
// emulator writes it, the CLI finds the control surface by it, and `@svc/client` hands out readRuntimeFile
// for scripts. With it, the other part of a data dir others read: the database folder, which the CLI asks
// about without loading PGlite. No package exports the rest: the emulator, the CLI's bundle and @svc/client
// each carry this file inside them.
import {readFile, rm, writeFile, rename} from 'node:fs/promises';
import {join} from 'node:path';
import {existsSync} from 'node:fs';

export const RUNTIME_FILE = 'emulator.json';

export interface RuntimeInfo {
  api_url: string;
  account_url: string;
  admin_token: string;
  pid: number;
  data_dir: string;
}

export function runtimeFilePath(dataDir: string): string {
  return join(dataDir, RUNTIME_FILE);
}

/**
 * Written 0600 and renamed into place, so a reader never sees half a file and nobody else can read the token. The
 * bytes go to a fresh name made for this write (O_EXCL: nothing already there, a link included, is opened).
 */
export async function writeRuntimeFile(dataDir: string, info: RuntimeInfo): Promise<void> {
  const path = runtimeFilePath(dataDir);
  await writeFresh(path, `${JSON.stringify(info, null, 2)}\n`);
}

/** Writes `text` (0600) to a fresh name beside `path`, then renames it over `path`: never through a link. */
export async function writeFresh(path: string, text: string): Promise<void> {
  // The global Web Crypto: node:crypto is not loaded by every command that reads a runtime file.
  const tmp = `${path}.${Buffer.from(crypto.getRandomValues(new Uint8Array(6))).toString('hex')}.tmp`;
  try {
    await writeFile(tmp, text, {mode: 0o600, flag: 'wx'});
    await rename(tmp, path);
  } catch (err) {
    // What is at the name is removed only when this write made it.
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') await rm(tmp, {force: true});
    throw err;
  }
}

export async function readRuntimeFile(dataDir: string): Promise<RuntimeInfo | undefined> {
  try {
    const info = JSON.parse(await readFile(runtimeFilePath(dataDir), 'utf8')) as Partial<RuntimeInfo>;
    if (
      typeof info.api_url !== 'string' ||
      typeof info.admin_token !== 'string' ||
      typeof info.pid !== 'number'
    ) {
      return undefined;
    }
    return info as RuntimeInfo;
  } catch {
    return undefined;
  }
}

/** Removes the file only when it still describes this process (a newer emulator may have replaced it). */
export async function removeRuntimeFile(dataDir: string, pid = process.pid): Promise<void> {
  const info = await readRuntimeFile(dataDir);
  if (info && info.pid !== pid) return;
  await rm(runtimeFilePath(dataDir), {force: true});
}

export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The PGlite database folder inside a data dir. */
export const PGDATA = 'pgdata';

/**
 * True when the data dir holds a database (an emulator ran there, or a state was loaded into it): light enough
 * for the CLI to ask without loading PGlite.
 */
export function holdsDatabase(dataDir: string): boolean {
  return existsSync(join(dataDir, PGDATA, 'PG_VERSION'));
}
