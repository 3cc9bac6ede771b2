// The data dir holds the database, the vault key and the admin token: only its owner may read or change
// anything in it, whether the emulator made it or was pointed at a folder that already existed.
import {chmodSync, lstatSync, readdirSync, type Stats} from 'node:fs';
import {mkdir, stat} from 'node:fs/promises';
import {join} from 'node:path';
import {StartOptionError} from './start-option.js';

const PRIVATE_DIR = 0o700;
const PRIVATE_FILE = 0o600;

/** The data dir cannot be made private; the message says why and what to do. */
export class DataDirError extends StartOptionError {
  constructor(message: ConstructorParameters<typeof StartOptionError>[0]) {
    super(message);
    this.name = 'DataDirError';
  }
}

/**
 * Creates `dir` if needed, then sets every folder under it (itself included) to 0700 and every file to
 * 0600. Symbolic links inside are left alone and never followed. Refuses a dir, or anything in it, that
 * belongs to another user, since its owner could read or change it whatever the mode.
 */
export async function makeDataDirPrivate(dir: string): Promise<void> {
  const notAFolder = () =>
    new DataDirError({
      option: 'dataDir',
      says: (name) => `the data dir ${dir} is not a folder; pick another with ${name}`,
    });
  await mkdir(dir, {recursive: true, mode: PRIVATE_DIR}).catch((err: NodeJS.ErrnoException) => {
    throw err.code === 'EEXIST' || err.code === 'ENOTDIR' ? notAFolder() : err;
  });
  const uid = process.getuid?.();
  const top = await stat(dir);
  if (!top.isDirectory()) throw notAFolder();
  // Synchronous on purpose: a data dir holds hundreds of files, and one fs call each through the thread pool
  // costs the start more than walking them at once, while nothing else is being served yet.
  privatise(dir, top, uid);
}

function privatise(path: string, info: Stats, uid: number | undefined): void {
  if (uid !== undefined && info.uid !== uid) {
    throw new DataDirError({
      option: 'dataDir',
      says: (name) =>
        `the emulator's data dir must belong to you, but ${path} belongs to another user (uid ${info.uid}); ` +
        'it holds API key hashes, signing secrets and the admin token, so pick a folder of your own with ' +
        `${name} (or SVC_EMULATOR_DATA_DIR), or change its owner`,
    });
  }
  const wanted = info.isDirectory() ? PRIVATE_DIR : PRIVATE_FILE;
  if (!info.isDirectory() && !info.isFile()) return;
  if ((info.mode & 0o777) !== wanted) {
    try {
      chmodSync(path, wanted);
    } catch (err) {
      const why = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      throw new DataDirError({
        option: 'dataDir',
        says: (name) =>
          `could not make ${path} private (${why}); ` +
          `the emulator refuses to keep secrets where others can read them: pick another with ${name}`,
      });
    }
  }
  if (!info.isDirectory()) return;
  for (const entry of readdirSync(path, {withFileTypes: true})) {
    if (entry.isSymbolicLink()) continue;
    const child = join(path, entry.name);
    let childInfo: Stats;
    try {
      childInfo = lstatSync(child);
    } catch (err) {
      // Gone since the listing: nothing left to protect.
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw err;
    }
    privatise(child, childInfo, uid);
  }
}
