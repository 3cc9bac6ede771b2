// A program that started an emulator with startEmulator() (the published @svc/cli/emulator entry, from the
// build) and ends without stopping it: interrupted (SIGINT, SIGTERM) or exiting from a signal handler of its own.
// The data dir made for the run, with emulator.json and the admin token in it, goes with the process.
import {existsSync, readFileSync} from 'node:fs';
import {mkdtemp, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {fileURLToPath} from 'node:url';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {spawnProcess} from './delivery/processes.js';

const ENTRY = fileURLToPath(new URL('../../dist/src/emulator/index.js', import.meta.url));

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-interrupted-'));
});
afterAll(async () => {
  await rm(root, {recursive: true, force: true});
});

/** Runs a script that starts an in-memory emulator, sends it `signal` once it is ready, and waits for its end. */
async function interrupt(signal: NodeJS.Signals, handler = '') {
  const script = join(root, `start-${signal}-${handler ? 'handled' : 'plain'}.mjs`);
  await writeFile(
    script,
    `import {startEmulator} from ${JSON.stringify(ENTRY)};
${handler}
const emulator = await startEmulator({inMemory: true, port: 0});
console.log(JSON.stringify({ready: emulator.dataDir, token: emulator.adminToken}));
`,
  );
  const p = spawnProcess(process.execPath, [script]);
  const ready = JSON.parse(await p.line((l) => l.startsWith('{"ready"'))) as {ready: string; token: string};
  // Ready: its data dir holds emulator.json with the admin token.
  const runtime = readFileSync(join(ready.ready, 'emulator.json'), 'utf8');
  expect(runtime).toContain(ready.token);
  p.child.kill(signal);
  const code = await p.exited;
  return {dataDir: ready.ready, code, signal: p.child.signalCode, stderr: p.stderr()};
}

describe('a program interrupted while its emulator runs', {timeout: 60_000}, () => {
  it.each(['SIGINT', 'SIGTERM'] as const)(
    'leaves no data dir, emulator.json or admin token behind on %s, and ends by the signal',
    async (signal) => {
      const r = await interrupt(signal);
      expect({signal: r.signal, stderr: r.stderr}).toEqual({signal, stderr: ''});
      expect(existsSync(r.dataDir)).toBe(false);
    },
  );

  it('leaves nothing behind when the program handles the signal itself and exits', async () => {
    const r = await interrupt('SIGTERM', `process.on('SIGTERM', () => process.exit(7));`);
    expect({code: r.code, stderr: r.stderr}).toEqual({code: 7, stderr: ''});
    expect(existsSync(r.dataDir)).toBe(false);
  });
});
