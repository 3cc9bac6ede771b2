// A resend to a relay endpoint: `svc listen` forwards it like any attempt, and its local answer is what the attempt
// records. Without a listener the resend is recorded as failed, with the reason.
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js';
import {type Receiver, startReceiver} from '../emulator/delivery/helpers.js';
import {type Spawned, spawnCli, stopProcess} from '../emulator/delivery/processes.js';
import {runCommand} from '../helpers/run-cli.js';

let dataDir: string;
let emulator: RunningEmulator | undefined;
let listener: Spawned | undefined;
let receiver: Receiver | undefined;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'svc-resend-relay-'));
  // What `svc emulator start --data-dir … --clock manual` runs (its start is not under test here), in this
  // process: the CLI and the listener find it through the runtime file in its data dir.
  emulator = await startEmulator({port: 0, dataDir, inMemory: true, clock: 'manual'});
});

afterAll(async () => {
  await stopProcess(listener);
  await emulator?.stop();
  await receiver?.close();
  if (dataDir) await rm(dataDir, {recursive: true, force: true});
});

describe('svc emulator deliveries resend to a relay endpoint', () => {
  it('goes through svc listen with the next attempt number; without a listener it records why it failed', async () => {
    receiver = await startReceiver((_q, res) => {
      res.writeHead(202);
      res.end('accepted again');
    });
    const control = (emulator as RunningEmulator).control;
    // Spawned: `svc listen` runs until a signal, and it must run beside the commands below.
    listener = spawnCli(['listen', '--data-dir', dataDir, '--forward-to', `${receiver.url}/hooks`, '--json']);
    await listener.line((l) => l.includes('"ready"'));
    const triggered = await runCommand(['trigger', 'sandbox.ready', '--data-dir', dataDir, '--json']);
    expect(triggered.code, triggered.stderr).toBe(0);
    const eventId = (JSON.parse(triggered.stdout) as {event: {id: string}}).event.id;
    const r = receiver;
    const first = await control.waitForDelivery({event_id: eventId, attempts: 1});
    expect(r.requests).toHaveLength(1);
    const deliveryId = String(r.requests[0]?.headers['svc-delivery-id']);
    expect(first.delivery.id).toBe(deliveryId);
    expect(first.attempts).toHaveLength(1);

    const resent = await runCommand([
      'emulator',
      'deliveries',
      'resend',
      deliveryId,
      '--data-dir',
      dataDir,
      '--json',
    ]);
    expect(resent.code, resent.stderr).toBe(0);
    const detail = JSON.parse(resent.stdout) as {
      attempts: {attempt: number; trigger: string; status_code: number}[];
    };
    expect(detail.attempts.at(-1)).toMatchObject({attempt: 2, trigger: 'manual', status_code: 202});
    expect(r.requests).toHaveLength(2);
    expect(r.requests[1]?.headers['svc-delivery-attempt']).toBe('2');
    expect(r.requests[1]?.body.equals(r.requests[0]?.body as Buffer)).toBe(true);

    await stopProcess(listener);
    const alone = await control.resendDelivery(deliveryId);
    expect(alone.attempts.at(-1)).toMatchObject({attempt: 3, trigger: 'manual', status_code: null});
    expect(alone.attempts.at(-1)?.error).toContain('no relay listener attached');
    expect(r.requests).toHaveLength(2);
  });
});
