// kill -9 in the middle of a burst of deliveries: after a restart on the same data dir every event arrives
// (at least once; duplicates are allowed, losses are not).
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {EmulatorControl} from '../../src/client/emulator-control.js';
import {readRuntimeFile} from '../../src/emulator-layout/runtime.js';
import {type Receiver, startReceiver} from '../emulator/delivery/helpers.js';
import {type EmulatorProcess, startEmulatorProcess, stopProcess} from '../emulator/delivery/processes.js';

let dataDir: string;
let emulators: EmulatorProcess[] = [];
let receiver: Receiver | undefined;

afterEach(async () => {
  for (const e of emulators) await stopProcess(e);
  emulators = [];
  await receiver?.close();
  receiver = undefined;
  if (dataDir) await rm(dataDir, {recursive: true, force: true});
});

async function control(dir: string): Promise<EmulatorControl> {
  const info = await readRuntimeFile(dir);
  if (!info) throw new Error('no emulator.json');
  return new EmulatorControl({url: info.api_url, adminToken: info.admin_token});
}

describe('a crash in the middle of a burst', () => {
  it('delivers every accepted event after a restart on the same data dir', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'svc-crash-'));
    const ANSWERED_BEFORE_KILL = 3;
    let killed = false;
    const heldUntilKill: (() => void)[] = [];
    receiver = await startReceiver((_q, res, index) => {
      // Slow enough that a burst is still in flight when the process dies: past the first few, an attempt is
      // answered only once the process is dead.
      if (index < ANSWERED_BEFORE_KILL || killed) res.end('ok');
      else heldUntilKill.push(() => res.end('ok'));
    });
    // Processes of their own: kill -9 and the restart on the same data dir are under test.
    const first = await startEmulatorProcess(dataDir, ['--allow-local-endpoints']);
    emulators.push(first);
    const c1 = await control(dataDir);
    await c1.createWebhook({url: `${receiver.url}/hooks`, events: ['sandbox.ready']});

    const triggered: string[] = [];
    for (let i = 0; i < 40; i++) {
      const move = await c1.trigger({type: 'sandbox.ready'});
      triggered.push(move.event?.id as string);
    }
    await receiver.received(ANSWERED_BEFORE_KILL + 1);
    first.child.kill('SIGKILL');
    await first.exited;
    killed = true;
    for (const release of heldUntilKill.splice(0)) release();
    const beforeCrash = new Set(receiver.requests.map((r) => String(r.headers['svc-event-id'])));
    expect(beforeCrash.size).toBeLessThan(triggered.length);

    // The restart on the same data dir, under test.
    const second = await startEmulatorProcess(dataDir, ['--allow-local-endpoints']);
    emulators.push(second);
    const received = () => new Set(receiver?.requests.map((r) => String(r.headers['svc-event-id'])));
    await receiver.until(() => triggered.every((id) => received().has(id)), 30_000);
    expect([...received()].sort()).toEqual([...triggered].sort());

    const c2 = await control(dataDir);
    const key = await c2.createKey({name: 'reader'});
    const hooks = (await (
      await fetch(`${second.apiUrl}/v1/webhooks`, {headers: {authorization: `Bearer ${key.secret}`}})
    ).json()) as {
      data: {id: string}[];
    };
    const hookId = hooks.data[0]?.id as string;
    for (const id of triggered) await c2.waitForDelivery({event_id: id, status: 'succeeded'});
    const res = await fetch(`${second.apiUrl}/v1/webhooks/${hookId}/deliveries`, {
      headers: {authorization: `Bearer ${key.secret}`},
    });
    const list = (await res.json()) as {data: {status: string}[]};
    expect(list.data).toHaveLength(40);
    expect(list.data.every((d) => d.status === 'succeeded')).toBe(true);
  });
});
