// An in-memory emulator keeps its database in memory: nothing of it is written to disk while it runs, it works
// like any other (keys, endpoints, the API), and its stop leaves nothing behind. The starts and stops are under
// test, so each test starts its own.
import {readdirSync} from 'node:fs';
import {mkdir, mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {startEmulator} from '../../src/emulator/index.js';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-in-memory-'));
});
afterAll(async () => {
  await rm(root, {recursive: true, force: true});
});

/** Every file under dir, relative to it. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, {recursive: true, withFileTypes: true})
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1));
}

describe('an in-memory emulator', () => {
  it('writes no database files while it runs, serves as usual, and leaves nothing once stopped', async () => {
    // Temporary folders are made under TMPDIR; this test file's process owns its own.
    const scratch = join(root, 'tmp');
    await mkdir(scratch);
    const before = process.env.TMPDIR;
    process.env.TMPDIR = scratch;
    let emulator: Awaited<ReturnType<typeof startEmulator>> | undefined;
    try {
      emulator = await startEmulator({inMemory: true, port: 0, allowLocalEndpoints: true});
      const key = await emulator.control.createKey({name: 'test'});
      const hook = await emulator.control.createWebhook({
        url: 'http://127.0.0.1:9/hooks',
        events: ['sandbox.ready'],
      });
      const res = await fetch(`${emulator.apiUrl}/v1/webhooks`, {
        headers: {authorization: `Bearer ${key.secret}`},
      });
      expect(res.status).toBe(200);
      expect(JSON.stringify(await res.json())).toContain(hook.id);
      // Only the runtime file the CLI finds the emulator by: no PostgreSQL data directory anywhere.
      expect(filesUnder(scratch).map((f) => f.split('/').pop())).toEqual(['emulator.json']);
    } finally {
      await emulator?.stop();
      if (before === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = before;
    }
    expect(readdirSync(scratch)).toEqual([]);
  });

  it('starts again and again, each time from an empty state of its own', async () => {
    const first = await startEmulator({inMemory: true, port: 0});
    const second = await startEmulator({inMemory: true, port: 0});
    try {
      await first.control.createKey({name: 'only in the first'});
      expect(first.orgId).not.toBe(second.orgId);
      const keys = await second.repos.keys.list(second.orgId);
      expect(keys).toEqual([]);
    } finally {
      await Promise.all([first.stop(), second.stop()]);
    }
  });
});
