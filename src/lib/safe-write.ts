// The one way svc writes a file for the user (credentials, --secrets-out, --out, its caches): owner-only (0600) from
// the first byte, whole or not at all, never through a symbolic link and never over another user's file. The bytes
// go to a fresh name in the target's folder (O_CREAT|O_EXCL|O_NOFOLLOW: nothing that was there is opened) and that
// name is renamed over the target (rename replaces a link, it never follows one). Before that it refuses:
//   - a folder that is not the user's (or root's), or that others can write to without the sticky bit: whoever can
//     write a folder can swap what is in it between svc's check and its use. A sticky shared folder (/tmp) is
//     fine: there only the owner of a name may replace or remove it, so a name of ours stays ours, and renaming
//     over a name someone else holds fails in the kernel as well as here;
//   - a target that is a symbolic link, not a regular file, or another user's file.
// The checks are pure functions of a stat too (folderProblem, fileProblem), so readers of files svc trusts (the
// code caches: src/cli/loader.ts, src/binary/cache.ts) apply the same rule before using what they read.
import {
  type BigIntStats,
  closeSync,
  constants,
  fchmodSync,
  fsyncSync,
  lstatSync,
  openSync,
  renameSync,
  rmSync,
  type Stats,
  statSync,
  writeFileSync,
} from 'node:fs';
import {basename, dirname, join, resolve} from 'node:path';
import {UserError} from './errors.js';

/** The user svc runs as, or undefined where files have no owner and mode to check (Windows). */
export function currentUid(): number | undefined {
  return typeof process.getuid === 'function' ? process.getuid() : undefined;
}

export interface TrustRule {
  /** Root's own folder or file is trusted too (a system-wide install, /tmp). */
  root?: boolean;
  /** A folder others can write to is fine when it is sticky (a new name of ours stays ours there). */
  sticky?: boolean;
}

const WRITABLE_BY_OTHERS = 0o022;
const STICKY = 0o1000;

function modeText(mode: number): string {
  return (mode & 0o7777).toString(8).padStart(4, '0');
}

function ownerProblem(owner: number, rule: TrustRule, uid: number): string | undefined {
  return owner === uid || (rule.root && owner === 0) ? undefined : 'belongs to another user';
}

/** Why svc cannot trust what is in this folder (or write into it), or undefined. */
export function folderProblem(
  info: Stats | BigIntStats,
  rule: TrustRule = {},
  uid = currentUid(),
): string | undefined {
  if (!info.isDirectory()) return 'is not a folder';
  if (uid === undefined) return undefined;
  const mode = Number(info.mode);
  return (
    ownerProblem(Number(info.uid), rule, uid) ??
    (mode & WRITABLE_BY_OTHERS && !(rule.sticky && mode & STICKY)
      ? `can be written by other users (mode ${modeText(mode)})`
      : undefined)
  );
}

/** Why svc cannot trust this file (from lstat, or fstat of what it opened), or undefined. */
export function fileProblem(
  info: Stats | BigIntStats,
  rule: TrustRule = {},
  uid = currentUid(),
): string | undefined {
  if (info.isSymbolicLink()) return 'is a symbolic link';
  if (!info.isFile()) return 'is not a regular file';
  if (uid === undefined) return undefined;
  const mode = Number(info.mode);
  return (
    ownerProblem(Number(info.uid), rule, uid) ??
    (mode & WRITABLE_BY_OTHERS ? `can be written by other users (mode ${modeText(mode)})` : undefined)
  );
}

export interface WriteOwnerOnlyOptions {
  /** How messages name the file, before its path: `--secrets-out`, `--out`, `the credentials file`. */
  label: string;
  /** The error's stable code (default `unsafe_write`). */
  code?: string;
  /**
   * The name is svc's own, in a folder its caller has checked as svc's own (a cache, a record of a check):
   * whatever is at the name is replaced, never written through, and the bytes are not flushed to disk first
   * (a cache lost in a crash is only made again).
   */
  replace?: boolean;
}

const OPEN_FRESH = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

function errorCode(err: unknown): string {
  return (err as NodeJS.ErrnoException).code ?? (err as Error).message;
}

/**
 * Writes `data` to `path`, mode 0600, whole or not at all. Throws a UserError naming the file and the reason (never
 * the data) when the folder or the file already there cannot be trusted, or the write fails.
 */
export function writeOwnerOnly(
  path: string,
  data: string | Uint8Array,
  options: WriteOwnerOnlyOptions,
): void {
  const dir = dirname(resolve(path));
  const refuse = (why: string, suggestions: string[], cause?: unknown) =>
    new UserError(`svc did not write ${options.label} ${path}: ${why}`, {
      code: options.code ?? 'unsafe_write',
      suggestions,
      cause,
    });
  const elsewhere = 'Name a file in a folder of your own that only you can write to';

  let folder: Stats;
  try {
    folder = statSync(dir);
  } catch (err) {
    const code = errorCode(err);
    if (code === 'ENOENT') throw refuse(`its folder ${dir} does not exist`, ['Make the folder first'], err);
    throw refuse(`its folder ${dir} could not be read (${code})`, [elsewhere], err);
  }
  const unsafeFolder = folderProblem(folder, {root: true, sticky: true});
  if (unsafeFolder) throw refuse(`its folder ${dir} ${unsafeFolder}`, [elsewhere]);

  if (!options.replace) {
    let target: Stats | undefined;
    try {
      target = lstatSync(path);
    } catch (err) {
      const code = errorCode(err);
      if (code !== 'ENOENT') throw refuse(`it could not be read (${code})`, [elsewhere], err);
    }
    if (target?.isSymbolicLink()) {
      throw refuse('it is a symbolic link, and svc never writes through one', [
        'Remove the link, or name the file it points to',
      ]);
    }
    if (target && !target.isFile()) {
      throw refuse(`it is ${target.isDirectory() ? 'a folder' : 'not a regular file'}`, ['Name a file']);
    }
    const uid = currentUid();
    if (target && uid !== undefined && target.uid !== uid) {
      throw refuse('it belongs to another user', ['Name a file of your own, or a new one']);
    }
  }

  // node:crypto is taken when a file is written, not when this module loads: every command reads credentials.
  const {randomBytes} = process.getBuiltinModule('node:crypto') as typeof import('node:crypto');
  const temporary = join(dir, `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  let fd: number | undefined;
  try {
    fd = openSync(temporary, OPEN_FRESH, 0o600);
  } catch (err) {
    throw refuse(`it could not be made in ${dir} (${errorCode(err)})`, [elsewhere], err);
  }
  try {
    writeFileSync(fd, data);
    // The umask cannot widen 0600, but a file system may ignore the mode at creation: set it again.
    if (currentUid() !== undefined) fchmodSync(fd, 0o600);
    if (!options.replace) fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(temporary, path);
  } catch (err) {
    if (fd !== undefined) closeSync(fd);
    rmSync(temporary, {force: true});
    const code = errorCode(err);
    // A sticky folder where someone else took the name meanwhile: the kernel refuses to replace their file.
    const why = code === 'EPERM' ? 'another user holds that name' : `the write failed (${code})`;
    throw refuse(why, code === 'ENOSPC' ? ['Free some disk space and try again'] : [elsewhere], err);
  }
}
