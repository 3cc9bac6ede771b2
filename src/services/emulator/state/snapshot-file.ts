// A snapshot written to a file: it holds signing secrets in clear text, so owner-only (0600), whole or not at all.
import {fchmodSync, fstatSync} from 'node:fs';
import {UserError} from '../../../lib/errors.js';
import {writeOwnerOnly} from '../../../lib/safe-write.js';
import type {Snapshot} from '../../../schemas/snapshot.js';

/**
 * Writes beside the target and renames over it (lib/safe-write.ts): a reader never sees half a file, the mode is
 * 0600 from the start, and nothing is written through a link or over another user's file.
 */
export async function writeSnapshotFile(path: string, snapshot: Snapshot): Promise<void> {
  writeOwnerOnly(path, `${JSON.stringify(snapshot, null, 2)}\n`, {
    label: 'the snapshot',
    code: 'unsafe_output',
  });
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
