// The data dir is owner-only after a start, whoever made it and however open it was; a dir that belongs to
// someone else is refused with a message that says what to do. The starts here are under test (what a start does
// to its data dir), so each is an emulator of its own.
import {chmod, chown, mkdir, mkdtemp, rm, stat, symlink, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterEach, beforeEach, describe, expect, it} from 'vitest';
import {DataDirError, makeDataDirPrivate} from '../../src/emulator/data-dir.js';
import {EmulatorStartError, startEmulator} from '../../src/emulator/index.js';
import {openToOthers} from '../helpers/file-modes.js';
import {itNeeding, ROOT} from '../helpers/requirements.js';

const posix = process.platform !== 'win32';
let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-datadir-'));
});
afterEach(() => rm(root, {recursive: true, force: true}));

/** Entries under `dir` (itself included) with any permission for group or others, as `path mode`. */

async function looseDir(): Promise<string> {
  const dir = join(root, 'data');
  await mkdir(join(dir, 'inner'), {recursive: true});
  await writeFile(join(dir, 'inner', 'note.txt'), 'x');
  await writeFile(join(dir, 'top.txt'), 'y');
  await chmod(dir, 0o755);
  await chmod(join(dir, 'inner'), 0o777);
  await chmod(join(dir, 'inner', 'note.txt'), 0o666);
  await chmod(join(dir, 'top.txt'), 0o644);
  return dir;
}

describe.runIf(posix)('a data dir that already exists', () => {
  it('is made owner-only, folders 0700 and files 0600, by a start on the embedded database', async () => {
    const dir = await looseDir();
    expect((await openToOthers(dir)).length).toBe(4);
    const em = await startEmulator({port: 0, dataDir: dir});
    try {
      expect(await openToOthers(dir)).toEqual([]);
      expect((await stat(join(dir, 'inner'))).mode & 0o777).toBe(0o700);
      expect((await stat(join(dir, 'top.txt'))).mode & 0o777).toBe(0o600);
    } finally {
      await em.stop();
    }
  });

  it('leaves symbolic links and what they point at alone', async () => {
    const dir = await looseDir();
    const outside = join(root, 'outside.txt');
    await writeFile(outside, 'not ours');
    await chmod(outside, 0o644);
    await symlink(outside, join(dir, 'link'));
    await makeDataDirPrivate(dir);
    expect((await stat(outside)).mode & 0o777).toBe(0o644);
    expect(await openToOthers(join(dir, 'inner'))).toEqual([]);
  });

  itNeeding([ROOT], 'is refused, untouched, when it belongs to another user', async () => {
    const dir = await looseDir();
    await chown(dir, 65534, 65534);
    const err = await startEmulator({port: 0, inMemory: true, dataDir: dir}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EmulatorStartError);
    expect((err as EmulatorStartError).code).toBe('data_dir_not_private');
    expect((err as Error).message).toMatch(/belongs to another user \(uid 65534\).*`dataDir` option/);
    expect((await stat(dir)).mode & 0o777).toBe(0o755);
  });

  itNeeding([ROOT], 'is refused when something inside belongs to another user', async () => {
    const dir = await looseDir();
    await chown(join(dir, 'inner', 'note.txt'), 65534, 65534);
    await expect(makeDataDirPrivate(dir)).rejects.toBeInstanceOf(DataDirError);
  });

  it('is refused when it is a file', async () => {
    const file = join(root, 'file');
    await writeFile(file, '');
    await expect(makeDataDirPrivate(file)).rejects.toThrow(/is not a folder/);
  });
});
