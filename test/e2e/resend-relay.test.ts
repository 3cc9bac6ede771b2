// A resend to a relay endpoint: `svc listen` forwards it like any attempt, and its local answer is what the attempt
// records. Without a listener the resend is recorded as failed, with the reason.
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {EmulatorControl} from '../../src/client/emulator-control.js';
import {readRuntimeFile} from '../../src/emulator-layout/runtime.js';
import {type Receiver, startReceiver, waitFor} from '../emulator/delivery/helpers.js';
import {type Spawned, spawnCli, startEmulatorProcess, stopProcess} from '../emulator/delivery/processes.js';
import {runCli} from '../helpers/run-cli.js';

let dataDir: string | undefined;
let processes: Spawned[] = [];
let receiver: Receiver | undefined;

afterEach(async () => {
  for (const p of processes.reverse()) await stopProcess(p);
  processes = [];
  await receiver?.close();
  receiver = undefined;
  if (dataDir) await rm(dataDir, {recursive: true, force: true});
  dataDir = undefined;
});

describe('svc emulator deliveries resend to a relay endpoint', () => {
  it('goes through svc listen with the next attempt number; without a listener it records why it failed', async () => {
    receiver = await startReceiver((_q, res) => {
      res.writeHead(202);
      res.end('accepted again');
    });
    dataDir = await mkdtemp(join(tmpdir(), 'svc-resend-relay-'));
    processes.push(await startEmulatorProcess(dataDir, ['--clock', 'manual']));
    const listener = spawnCli([
      'listen',
      '--data-dir',
      dataDir,
      '--forward-to',
      `${receiver.url}/hooks`,
      '--json',
    ]);
    processes.push(listener);
    await listener.line((l) => l.includes('"ready"'));
    const triggered = await runCli(['trigger', 'sandbox.ready', '--data-dir', dataDir, '--json']);
    expect(triggered.code, triggered.stderr).toBe(0);
    const r = receiver;
    await waitFor(() => r.requests.length === 1);
    const deliveryId = String(r.requests[0]?.headers['svc-delivery-id']);
    const info = await readRuntimeFile(dataDir);
    const control = new EmulatorControl({
      url: info?.api_url as string,
      adminToken: info?.admin_token as string,
    });
    await waitFor(async () => (await control.delivery(deliveryId)).attempts.length === 1);

    const resent = await runCli([
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
