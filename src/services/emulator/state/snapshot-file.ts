// A snapshot written to a file: it holds signing secrets in clear text, so owner-only (0600), whole or not at all.
import {randomBytes} from 'node:crypto';
import {chmod, rename, rm, writeFile} from 'node:fs/promises';
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
