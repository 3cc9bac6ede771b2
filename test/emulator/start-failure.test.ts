// A start that fails leaves nothing behind: no temporary folder of an in-memory emulator, no data dir that the
// start itself made, and a database that cannot be opened is reported with the folder and what to do. Every start
// here is under test (each fails), so none is shared.
import {createServer, type Server} from 'node:net';
import {existsSync, readdirSync} from 'node:fs';
import {mkdir, mkdtemp, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {EmulatorStartError, startEmulator} from '../../src/emulator/index.js';

let root: string;
let taken: Server;
let port: number;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-start-failure-'));
  taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  port = (taken.address() as {port: number}).port;
});
afterAll(async () => {
  await new Promise((resolve) => taken.close(resolve));
  await rm(root, {recursive: true, force: true});
});

describe('a failed start', () => {
  it('on a data dir that is a file names the `dataDir` option, and is about no other', async () => {
    const file = join(root, 'a-file');
    await writeFile(file, 'not a folder');
    const failed = await startEmulator({dataDir: file, port: 0}).catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(EmulatorStartError);
    expect(failed).toMatchObject({code: 'data_dir_not_private', option: 'dataDir'});
    expect((failed as EmulatorStartError).message).toBe(
      `the data dir ${file} is not a folder; pick another with the \`dataDir\` option`,
    );
  });

  it('of an in-memory emulator leaves no temporary folder', async () => {
    // Temporary folders are made under TMPDIR; this test file's process owns its own.
    const scratch = join(root, 'tmp');
    await mkdir(scratch);
    const before = process.env.TMPDIR;
    process.env.TMPDIR = scratch;
    try {
      const failed = await startEmulator({inMemory: true, port}).catch((err: unknown) => err);
      expect(failed).toBeInstanceOf(EmulatorStartError);
      expect((failed as EmulatorStartError).code).toBe('port_in_use');
      // The library names its own option, in its own words; a CLI names its flag from `option`.
      expect((failed as EmulatorStartError).option).toBe('port');
      expect((failed as EmulatorStartError).message).toBe(
        `port ${port} on 127.0.0.1 is already in use; pick another with the \`port\` option`,
      );
      expect((failed as EmulatorStartError).naming('--port')).toBe(
        `port ${port} on 127.0.0.1 is already in use; pick another with --port`,
      );
    } finally {
      if (before === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = before;
    }
    expect(readdirSync(scratch)).toEqual([]);
  });

  it('removes the data dir it made, and keeps one that was there before', async () => {
    const made = join(root, 'new-data');
    await expect(startEmulator({dataDir: made, port})).rejects.toMatchObject({code: 'port_in_use'});
    expect(existsSync(made)).toBe(false);

    const kept = join(root, 'kept-data');
    await mkdir(kept);
    await writeFile(join(kept, 'notes.txt'), 'mine');
    await expect(startEmulator({dataDir: kept, port})).rejects.toMatchObject({code: 'port_in_use'});
    expect(readdirSync(kept)).toContain('notes.txt');
  });

  it('says which database could not be opened and what to do, and leaves it as it was', async () => {
    const dir = join(root, 'damaged');
    await mkdir(join(dir, 'pgdata'), {recursive: true});
    await writeFile(join(dir, 'pgdata', 'PG_VERSION'), '17\n');
    const failed = (await startEmulator({dataDir: dir, port: 0}).catch((err: unknown) => err)) as Error;
    expect(failed.message).toContain(join(dir, 'pgdata'));
    expect(failed.message).toMatch(/move the data dir away and start again \(or use the `inMemory` option\)/);
    expect(failed).toMatchObject({option: 'inMemory'});
    expect(readdirSync(join(dir, 'pgdata'))).toContain('PG_VERSION');
  });
});
