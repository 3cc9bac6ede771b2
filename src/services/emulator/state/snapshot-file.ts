// A snapshot written to a file: it holds signing secrets in clear text, so owner-only (0600), whole or not at all.
import {randomBytes} from 'node:crypto';
import {fchmodSync, fstatSync} from 'node:fs';
import {chmod, rename, rm, writeFile} from 'node:fs/promises';
import {UserError} from '../../../lib/errors.js';
import {basename, dirname, join} from 'node:path';
import type {Snapshot} from '../../../schemas/snapshot.js';

/** Writes beside the target and renames over it: a reader never sees half a file, and the mode is 0600 from the start. */
export async function writeSnapshotFile(path: string, snapshot: Snapshot): Promise<void> {
  const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await writeFile(temporary, `${JSON.stringify(snapshot, null, 2)}\n`, {mode: 0o600, flag: 'wx'});
    // The umask cannot widen 0600, but a file system may ignore the mode at creation: set it again.
    await chmod(temporary, 0o600);
    await rename(temporary, path);
  } catch (err) {
    await rm(temporary, {force: true});
    throw err;
  }
}

/**
 * Before a snapshot goes to stdout: when stdout is a regular file (`> state.json`), the shell made it with the
 * umask's mode, often readable by others. It is set to 0600 first, or the export is refused with `--out` as the
 * fix. A terminal or a pipe is left as it is.
 */
export function protectStdoutFile(fd = 1): void {
  let info: ReturnType<typeof fstatSync>;
  try {
    info = fstatSync(fd);
  } catch {
    return;
  }
  if (!info.isFile() || (info.mode & 0o077) === 0) return;
  try {
    fchmodSync(fd, 0o600);
  } catch (err) {
    throw new UserError(
      `the snapshot was not written: stdout is a file others can read, and its mode could not be set to 0600 (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
      {
        code: 'unsafe_output',
        suggestions: ['Write it with --out FILE, which makes the file owner-only (0600)'],
      },
    );
  }
}
