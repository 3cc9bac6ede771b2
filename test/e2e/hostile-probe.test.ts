// The core of a hostile probe, bounded so it runs on every CI run against the built CLI's emulator: parallel
// guesses from one address, the control surface during the lockout that follows, NUL and overflow inputs, a
// data dir left open to others before the start, and kill -9 in the middle of a burst of deliveries.
import {chmod, mkdir, mkdtemp, rm, writeFile} from 'node:fs/promises';
import {Agent} from 'node:http';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {EmulatorControl, EmulatorControlError} from '../../src/client/emulator-control.js';
import {readRuntimeFile} from '../../src/emulator-layout/runtime.js';
import {type Receiver, startReceiver} from '../emulator/delivery/helpers.js';
import {type EmulatorProcess, startEmulatorProcess, stopProcess} from '../emulator/delivery/processes.js';
import {openToOthers} from '../helpers/file-modes.js';
import {rawGet} from '../helpers/raw-get.js';
import {runCommand} from '../helpers/run-cli.js';

const PARALLEL_GUESSES = 200;
// The emulator's default: 20 failed authentications per address per minute.
const FAILURE_LIMIT = 20;

let root: string;
let dataDir: string;
let emulator: EmulatorProcess | undefined;
let control: EmulatorControl;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-probe-'));
  // A data dir made by someone else's tools: open to everyone, with a stray world-readable file in it.
  dataDir = join(root, 'data');
  await mkdir(join(dataDir, 'notes'), {recursive: true});
  await writeFile(join(dataDir, 'notes', 'readme.txt'), 'left here before the emulator started\n');
  await chmod(dataDir, 0o755);
  await chmod(join(dataDir, 'notes'), 0o755);
  await chmod(join(dataDir, 'notes', 'readme.txt'), 0o644);
  // The file's one emulator, a process of its own: what `svc emulator start` does to a data dir open to others is
  // under test, and so are the limits on the addresses real connections come from.
  emulator = await startEmulatorProcess(dataDir, ['--clock', 'manual']);
  const info = await readRuntimeFile(dataDir);
  if (!info) throw new Error('no emulator.json');
  control = new EmulatorControl({url: info.api_url, adminToken: info.admin_token});
}, 60_000);

afterAll(async () => {
  await stopProcess(emulator);
  if (root) await rm(root, {recursive: true, force: true});
});

/** Every entry under `dir` (itself included) that a user other than its owner could read, write or enter. */

function get(path: string, authorization: string, agent: Agent) {
  return rawGet(new URL(path, emulator?.apiUrl), {authorization, agent});
}

describe('a hostile probe, bounded', {timeout: 120_000}, () => {
  it('leaves nothing in a data dir that was open to others before the start open to them', async () => {
    const open = await openToOthers(dataDir);
    console.log(`entries open to others after start: ${open.length}`);
    expect(open).toEqual([]);
  });

  it(`answers ${PARALLEL_GUESSES} parallel wrong keys from one address with at most ${FAILURE_LIMIT} 401s`, async () => {
    const agent = new Agent({maxSockets: PARALLEL_GUESSES, keepAlive: false});
    try {
      const guesses = Array.from(
        {length: PARALLEL_GUESSES},
        (_, i) => `Bearer svc_${String(i).padStart(40, 'G')}`,
      );
      const answers = await Promise.all(guesses.map((g) => get('/v1/org', g, agent)));
      const unauthorized = answers.filter((a) => a.status === 401).length;
      const limited = answers.filter((a) => a.status === 429);
      console.log(`401s out of ${PARALLEL_GUESSES} parallel wrong keys: ${unauthorized}`);
      expect(unauthorized).toBeLessThanOrEqual(FAILURE_LIMIT);
      expect(unauthorized + limited.length).toBe(PARALLEL_GUESSES);
      for (const a of limited) {
        expect(Number(a.retryAfter)).toBeGreaterThan(0);
        const message = (JSON.parse(a.body) as {error: {message: string}}).error.message;
        expect(message).toContain(`try again in ${a.retryAfter} s`);
      }
    } finally {
      agent.destroy();
    }
  });

  it('keeps the control surface open during the lockout, and its reset ends the lockout', async () => {
    const agent = new Agent();
    try {
      // The lockout of its own (the parallel guesses above leave one too, but this test runs alone as well).
      for (let i = 0; i <= FAILURE_LIMIT; i++) await get('/v1/org', `Bearer svc_${'L'.repeat(40)}`, agent);
      const key = await control.createKey({name: 'during-lockout'});
      // A good key from the limited address waits too: otherwise guesses could go on between good requests.
      expect((await get('/v1/org', `Bearer ${key.secret}`, agent)).status).toBe(429);
      const reset = await runCommand(['emulator', 'limiter', 'reset', '--data-dir', dataDir]);
      expect(reset.code, reset.stderr).toBe(0);
      expect((await get('/v1/org', `Bearer ${key.secret}`, agent)).status).toBe(200);
    } finally {
      agent.destroy();
    }
  });

  it('counts all of 127.0.0.0/8 as one address, and never locks out the admin token', async () => {
    const from = (localAddress: string, authorization: string) =>
      rawGet(new URL('/v1/org', emulator?.apiUrl), {authorization, localAddress});
    await runCommand(['emulator', 'limiter', 'reset', '--data-dir', dataDir]);
    for (let i = 0; i <= FAILURE_LIMIT; i++) await from('127.0.0.1', `Bearer svc_${'B'.repeat(40)}`);
    // Moving to another loopback address starts no new budget: still refused, with the wait.
    for (const address of ['127.0.0.2', '127.9.8.7']) {
      const moved = await from(address, `Bearer svc_${'C'.repeat(40)}`);
      expect(moved.status, address).toBe(429);
      expect(Number(moved.retryAfter)).toBeGreaterThan(0);
      expect(moved.body).toContain('svc emulator limiter reset');
    }
    // Wrong admin tokens spend the control budget; the right one still passes, and so do control commands.
    for (let i = 0; i <= FAILURE_LIMIT; i++) {
      await rawGet(new URL('/_emulator/health', emulator?.apiUrl), {authorization: 'Bearer adm_wrong'});
    }
    expect((await control.clock()).mode).toBe('manual');
    const reset = await runCommand(['emulator', 'limiter', 'reset', '--data-dir', dataDir]);
    expect(reset.code, reset.stderr).toBe(0);
    expect((await from('127.0.0.3', `Bearer svc_${'D'.repeat(40)}`)).status).toBe(401);
  });

  it('refuses NUL in a text field with 400 naming the field', async () => {
    const err = await control.createKey({name: 'nul\u0000name'}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EmulatorControlError);
    expect((err as EmulatorControlError).status).toBe(400);
    expect((err as EmulatorControlError).message).toContain('name');
  });

  it('refuses to move the clock past its range, and the clock keeps working', async () => {
    const before = await control.clock();
    const advanced = await runCommand(['emulator', 'clock', 'advance', '100000000d', '--data-dir', dataDir]);
    expect(advanced.code).not.toBe(0);
    expect(advanced.stderr).toMatch(/outside the times it can show/);
    const set = await runCommand(['emulator', 'clock', 'set', '0000-01-01T00:00:00Z', '--data-dir', dataDir]);
    expect(set.code).not.toBe(0);
    expect((await control.clock()).now).toBe(before.now);
    // Everything that reads the clock still works.
    const key = await control.createKey({name: 'after-overflow', expires: '365'});
    expect(key.expires_at).toBeTruthy();
    expect((await control.trigger({type: 'sandbox.ready'})).event?.type).toBe('sandbox.ready');
  });
});

describe('kill -9 in the middle of a burst', {timeout: 120_000}, () => {
  let crashDir: string;
  const processes: EmulatorProcess[] = [];
  let receiver: Receiver | undefined;

  afterAll(async () => {
    for (const p of processes) await stopProcess(p);
    await receiver?.close();
    if (crashDir) await rm(crashDir, {recursive: true, force: true});
  });

  it('delivers every acknowledged event after a restart on the same data dir', async () => {
    crashDir = await mkdtemp(join(tmpdir(), 'svc-probe-crash-'));
    const ANSWERED_BEFORE_KILL = 3;
    const EVENTS = 30;
    let killed = false;
    const heldUntilKill: (() => void)[] = [];
    receiver = await startReceiver((_q, res, index) => {
      // The first few are answered; the next is held until the process is dead, so the kill lands with
      // an attempt in flight and the rest of the burst still to send.
      if (index < ANSWERED_BEFORE_KILL || killed) res.end('ok');
      else heldUntilKill.push(() => res.end('ok'));
    });
    // Processes of their own: kill -9 and the restart on the same data dir are under test.
    const first = await startEmulatorProcess(crashDir, ['--allow-local-endpoints']);
    processes.push(first);
    const info = await readRuntimeFile(crashDir);
    if (!info) throw new Error('no emulator.json');
    const c1 = new EmulatorControl({url: info.api_url, adminToken: info.admin_token});
    await c1.createWebhook({url: `${receiver.url}/hooks`, events: ['sandbox.ready']});
    // Acknowledged: the control surface answered with the event's id.
    const acknowledged = await Promise.all(
      Array.from(
        {length: EVENTS},
        async () => (await c1.trigger({type: 'sandbox.ready'})).event?.id as string,
      ),
    );
    // The first held attempt has arrived: the kill lands with it in flight.
    await receiver.received(ANSWERED_BEFORE_KILL + 1);
    expect(heldUntilKill.length).toBeGreaterThan(0);
    first.child.kill('SIGKILL');
    await first.exited;
    killed = true;
    for (const release of heldUntilKill.splice(0)) release();
    // What the first process got answered before it died: only the first few of the burst.
    const eventOf = (r: {headers: Record<string, unknown>}) => String(r.headers['svc-event-id']);
    const answeredBeforeKill = new Set(receiver.requests.slice(0, ANSWERED_BEFORE_KILL).map(eventOf));
    expect(answeredBeforeKill.size).toBe(ANSWERED_BEFORE_KILL);

    // The restart on the same data dir, under test.
    processes.push(await startEmulatorProcess(crashDir, ['--allow-local-endpoints']));
    const received = () => new Set(receiver?.requests.map(eventOf));
    await receiver.until(
      (requests) => acknowledged.every((id) => requests.some((r) => eventOf(r) === id)),
      30_000,
    );
    expect(acknowledged.filter((id) => !received().has(id))).toEqual([]);
    // The restarted process delivered the rest of the burst, the attempt cut short by the kill included.
    const afterRestart = new Set(receiver.requests.slice(ANSWERED_BEFORE_KILL + 1).map(eventOf));
    expect(acknowledged.filter((id) => !answeredBeforeKill.has(id) && !afterRestart.has(id))).toEqual([]);
  });
});
