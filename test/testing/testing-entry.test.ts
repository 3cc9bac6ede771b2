// The testing entry as runners other than vitest use it: node:test with the fixture, and a run interrupted with
// SIGINT or SIGTERM, which leaves no data dir (and so no emulator.json) behind.
import {spawn} from 'node:child_process';
import {existsSync} from 'node:fs';
import {mkdtemp, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {fileURLToPath} from 'node:url';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';

const ENTRY = fileURLToPath(new URL('../../dist/src/testing/index.js', import.meta.url));

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-testing-entry-'));
});
afterAll(async () => {
  await rm(root, {recursive: true, force: true});
});

function run(args: string[], onLine?: (line: string, kill: (s: NodeJS.Signals) => void) => void) {
  return new Promise<{code: number | null; signal: NodeJS.Signals | null; output: string}>((resolve) => {
    const child = spawn(process.execPath, args, {cwd: root, stdio: ['ignore', 'pipe', 'pipe']});
    let output = '';
    child.stdout.on('data', (c: Buffer) => {
      output += c.toString();
      for (const line of c.toString().split('\n')) if (line) onLine?.(line, (s) => child.kill(s));
    });
    child.stderr.on('data', (c: Buffer) => {
      output += c.toString();
    });
    child.on('exit', (code, signal) => resolve({code, signal, output}));
  });
}

describe('@svc/cli/testing outside vitest', {timeout: 120_000}, () => {
  it('gives a node:test file its org, key, endpoint and a receiver that records verified deliveries', async () => {
    const file = join(root, 'receiver.test.mjs');
    await writeFile(
      file,
      `import {test, after} from 'node:test';
import assert from 'node:assert/strict';
import {startTestEmulator, createOrgFixture} from ${JSON.stringify(ENTRY)};

const emulator = await startTestEmulator();
const svc = await createOrgFixture(emulator.connection, {events: ['sandbox.ready']});
after(async () => {
  await svc[Symbol.asyncDispose]();
  await emulator[Symbol.asyncDispose]();
});

test('a delivery reaches the receiver, signed with the endpoint secret', async () => {
  const move = await svc.control.trigger({type: 'sandbox.ready'});
  const done = await svc.control.waitForDelivery({event_id: move.event.id, status: 'succeeded'});
  assert.equal(done.attempts.length, 1);
  assert.equal(svc.receiver.rejected, 0);
  assert.deepEqual(svc.receiver.deliveries.map((d) => d.eventId), [move.event.id]);
  assert.equal(svc.key.secret.startsWith('svc_'), true);
});
`,
    );
    const r = await run(['--test', file]);
    expect(r.code, r.output).toBe(0);
    // TAP (Node 20) or the spec reporter (Node 22 and newer).
    expect(r.output).toMatch(/(#|ℹ) pass 1/);
  });

  it.each(['SIGINT', 'SIGTERM'] as const)(
    'leaves no data dir behind when the run gets %s',
    async (signal) => {
      const file = join(root, `interrupted-${signal}.mjs`);
      await writeFile(
        file,
        `import {startTestEmulator} from ${JSON.stringify(ENTRY)};
const emulator = await startTestEmulator();
console.log(emulator.emulator.dataDir);
setInterval(() => undefined, 1000);
`,
      );
      let dataDir = '';
      const r = await run([file], (line, kill) => {
        dataDir = line;
        expect(existsSync(join(line, 'emulator.json'))).toBe(true);
        kill(signal);
      });
      expect(r.signal, r.output).toBe(signal);
      expect(dataDir).not.toBe('');
      expect(existsSync(dataDir)).toBe(false);
    },
  );
});
