// The files the single executable (docs/binary.md) needs on disk: Node loads modules, worker threads and native
// addons only from files. They are written once per build to a folder of their own, owner-only, and checked
// against the build's list (size and SHA-256 of each): a folder that differs in any way is written again, never
// trusted. Reading and hashing some 45 MB at every start would cost more than the start itself, so a full check
// is recorded beside the folder with what the kernel says of each entry (inode, size, mode, owner, and the
// change time, which any write or chmod moves and no user can set back); each start compares that record with
// a fresh lstat of every entry, and anything changed since sends it through the full check again.
// The cache folder that holds them (SVC_CACHE_DIR, or the user's) must itself be the user's and closed to others
// (lib/safe-write.ts's rule, as for the CLI's code cache): whoever can write to it could rename the checked folder
// away between the check and the use and put another in its place, or plant the record of a check. Such a folder
// is refused, and the record is written and read without following a link.
import {createHash} from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import {dirname, join} from 'node:path';
import {fileProblem, folderProblem, writeOwnerOnly} from '../lib/safe-write.js';

/** One file of the payload: where it goes (relative, '/'-separated) and where its bytes lie in the payload. */
export interface PayloadFile {
  path: string;
  offset: number;
  size: number;
  sha256: string;
}

export interface PayloadIndex {
  files: PayloadFile[];
}

const PRIVATE = 0o077;

export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function modeText(mode: number): string {
  return (mode & 0o777).toString(8).padStart(4, '0');
}

/** Why an entry of the folder cannot be trusted, or undefined. */
function entryProblem(path: string, shown: string, kind: 'folder' | 'file', uid: number): string | undefined {
  const stat = lstatSync(path);
  const isKind = kind === 'folder' ? stat.isDirectory() : stat.isFile();
  if (!isKind) return `${shown} is not a ${kind}`;
  if (stat.uid !== uid) return `${shown} belongs to another user`;
  if (stat.mode & PRIVATE) return `${shown} is open to other users (mode ${modeText(stat.mode)})`;
  return undefined;
}

/** Why the cache folder holding `dir` cannot be trusted with code, or undefined. */
export function baseProblem(dir: string, uid = process.getuid?.() ?? 0): string | undefined {
  const base = dirname(dir);
  let problem: string | undefined;
  try {
    problem = folderProblem(statSync(base), {}, uid);
  } catch (err) {
    problem = `could not be read (${(err as NodeJS.ErrnoException).code})`;
  }
  return problem && `the cache folder ${base} ${problem}`;
}

/**
 * Why the folder cannot be used for this build, or undefined when it holds exactly the build's files, each of
 * the right size and hash, every folder 0700 and every file 0600 and all of them the user's own, in a cache folder
 * that is the user's and closed to others.
 */
export function cacheProblem(
  dir: string,
  index: PayloadIndex,
  uid = process.getuid?.() ?? 0,
): string | undefined {
  const expected = new Map(index.files.map((f) => [f.path, f]));
  const problem = baseProblem(dir, uid) ?? entryProblem(dir, 'the folder', 'folder', uid);
  if (problem) return problem;
  const seen = new Set<string>();
  const walk = (rel: string): string | undefined => {
    for (const entry of readdirSync(join(dir, rel), {withFileTypes: true})) {
      const path = rel ? `${rel}/${entry.name}` : entry.name;
      const full = join(dir, path);
      if (entry.isDirectory()) {
        const bad = entryProblem(full, path, 'folder', uid) ?? walk(path);
        if (bad) return bad;
        continue;
      }
      const file = expected.get(path);
      if (!file) return `${path} is not one of the build's files`;
      const bad = entryProblem(full, path, 'file', uid);
      if (bad) return bad;
      const bytes = readFileSync(full);
      if (bytes.length !== file.size) return `${path} has ${bytes.length} bytes instead of ${file.size}`;
      if (sha256(bytes) !== file.sha256) return `${path} differs from the build's`;
      seen.add(path);
    }
    return undefined;
  };
  const bad = walk('');
  if (bad) return bad;
  const missing = index.files.find((f) => !seen.has(f.path));
  return missing ? `${missing.path} is missing` : undefined;
}

/** Every folder of the payload, the root ('') included, parents first. */
function folders(index: PayloadIndex): string[] {
  const all = new Set<string>(['']);
  for (const file of index.files) {
    const parts = file.path.split('/');
    for (let i = 1; i < parts.length; i++) all.add(parts.slice(0, i).join('/'));
  }
  return [...all].sort();
}

/**
 * What the kernel says of every entry of the folder, as one hash, and the latest change time among them;
 * undefined when an entry is missing.
 */
function fingerprint(dir: string, index: PayloadIndex): {print: string; newest: bigint} | undefined {
  const hash = createHash('sha256');
  let newest = 0n;
  try {
    for (const path of [...folders(index), ...index.files.map((f) => f.path)]) {
      const s = lstatSync(path ? join(dir, path) : dir, {bigint: true});
      hash.update(`${path}\0${s.mode}\0${s.uid}\0${s.size}\0${s.ino}\0${s.mtimeNs}\0${s.ctimeNs}\n`);
      if (s.ctimeNs > newest) newest = s.ctimeNs;
    }
  } catch {
    return undefined;
  }
  return {print: hash.digest('hex'), newest};
}

/** The record of the last full check: beside the folder, since writing into it would change what it records. */
function checkRecord(dir: string): string {
  return `${dir}.checked`;
}

/**
 * True when the folder passed a full check and no entry of it has changed since: every entry as recorded, and
 * each changed before the record was written (a change within the same tick of the clock as the record would
 * leave the same times behind, so an entry as recent as the record is not vouched for).
 */
export function checkedBefore(dir: string, index: PayloadIndex): boolean {
  if (baseProblem(dir)) return false;
  let recorded: string;
  let recordedAt: bigint;
  let fd: number | undefined;
  try {
    // The record as opened, never through a link, and only one of the user's own that no one else can write.
    fd = openSync(checkRecord(dir), constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
    const info = fstatSync(fd, {bigint: true});
    if (fileProblem(info)) return false;
    recorded = readFileSync(fd, 'utf8');
    recordedAt = info.ctimeNs;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  const now = fingerprint(dir, index);
  return now !== undefined && now.print === recorded && now.newest < recordedAt;
}

/** Records that the folder, as it is now, passed the full check (cacheProblem). */
export function recordCheck(dir: string, index: PayloadIndex): void {
  const now = fingerprint(dir, index);
  if (!now || baseProblem(dir)) return;
  try {
    // A fresh name of its own (O_EXCL, never through a link) renamed over the record.
    writeOwnerOnly(checkRecord(dir), now.print, {label: 'the record of a check', replace: true});
  } catch {
    // Without the record the next start checks the folder in full again: slower, never less safe.
  }
}

/**
 * Writes the payload's files into a fresh folder beside `dir` and moves it into place whole, so that no run
 * ever sees half a folder. Another process may have written the same build meanwhile: its folder is kept.
 */
export function writeCache(dir: string, index: PayloadIndex, payload: Uint8Array): void {
  const partial = `${dir}.partial-${process.pid}`;
  // Owner-only from the start: every folder 0700 and every file 0600 as made, whatever the user's umask.
  const umask = process.umask(0o077);
  const made = new Set<string>();
  try {
    mkdirSync(dirname(dir), {recursive: true, mode: 0o700});
    const base = baseProblem(dir);
    if (base) throw new Error(`${base}; svc keeps its program's files only in a folder that is yours alone`);
    rmSync(partial, {recursive: true, force: true});
    mkdirSync(partial, {mode: 0o700});
    for (const file of index.files) {
      const target = join(partial, ...file.path.split('/'));
      const parent = dirname(target);
      if (!made.has(parent)) {
        mkdirSync(parent, {recursive: true, mode: 0o700});
        made.add(parent);
      }
      writeFileSync(target, payload.subarray(file.offset, file.offset + file.size), {
        mode: 0o600,
        flag: 'wx',
      });
    }
    renameSync(partial, dir);
  } catch (err) {
    rmSync(partial, {recursive: true, force: true});
    const code = (err as NodeJS.ErrnoException).code;
    // Lost a race to another run writing the same build: its folder is checked like any other.
    if (code === 'ENOTEMPTY' || code === 'EEXIST') return;
    throw err;
  } finally {
    process.umask(umask);
  }
}

/** The folder's path inside the cache directory: one folder per build, named after the build's hash. */
export function cacheFolder(base: string, buildHash: string): string {
  return join(base, `binary-${buildHash}`);
}
