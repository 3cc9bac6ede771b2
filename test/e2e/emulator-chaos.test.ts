// Delivery chaos as a user drives it: `svc emulator start --chaos …`, `svc emulator webhooks chaos`, and the
// duplicate it makes shown as a chaos attempt by `svc webhooks deliveries show`. Real processes, a real receiver.
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {EmulatorControl} from '../../src/client/emulator-control.js';
import {readRuntimeFile} from '../../src/emulator-layout/runtime.js';
import {type EmulatorProcess, startEmulatorProcess, stopProcess} from '../emulator/delivery/processes.js';
import {type Receiver, startReceiver} from '../emulator/delivery/helpers.js';
import {runCommand} from '../helpers/run-cli.js';

let dataDir: string;
let emulator: EmulatorProcess | undefined;
let receiver: Receiver;
let hookId: string;
let control: EmulatorControl;
const cli = (args: string[], env: Record<string, string> = {}) =>
  runCommand([...args, '--data-dir', dataDir], {env: {SVC_CONFIG_DIR: join(dataDir, 'config'), ...env}});

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'svc-chaos-'));
  receiver = await startReceiver();
  // The file's one emulator, a process of its own: `svc emulator start --chaos` (the flag, as a user passes it)
  // is under test.
  emulator = await startEmulatorProcess(join(dataDir, 'emu'), [
    '--allow-local-endpoints',
    '--chaos',
    'duplicate=1,seed=3',
  ]);
  dataDir = join(dataDir, 'emu');
  const info = await readRuntimeFile(dataDir);
  if (!info) throw new Error('no emulator.json');
  control = new EmulatorControl({url: info.api_url, adminToken: info.admin_token});
  const created = await cli([
    'emulator',
    'webhooks',
    'create',
    '--url',
    `${receiver.url}/hooks`,
    '--events',
    'sandbox.ready',
    '--json',
  ]);
  expect(created.code, created.stderr).toBe(0);
  hookId = JSON.parse(created.stdout).id;
}, 60_000);

afterAll(async () => {
  await stopProcess(emulator);
  await receiver?.close();
  await rm(join(dataDir, '..'), {recursive: true, force: true});
});

describe('svc emulator --chaos and svc emulator webhooks chaos', {timeout: 60_000}, () => {
  it('shows the emulator-wide chaos on an endpoint that has none of its own', async () => {
    const r = await cli(['emulator', 'webhooks', 'chaos', hookId, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      endpoint_id: hookId,
      chaos: {duplicate: 1, reorder: 0, delay_min_ms: 0, delay_max_ms: 0, seed: 3},
      source: 'emulator',
    });
  });

  it('delivers an event twice with one event id; deliveries show marks the second attempt chaos', async () => {
    const before = receiver.requests.length;
    const t = await cli(['trigger', 'sandbox.ready', '--json']);
    expect(t.code, t.stderr).toBe(0);
    const eventId = JSON.parse(t.stdout).event.id as string;
    const got = (await receiver.received(before + 2)).slice(before);
    expect(got.map((r) => r.headers['svc-event-id'])).toEqual([eventId, eventId]);
    expect(got.map((r) => r.headers['svc-delivery-attempt'])).toEqual(['1', '2']);

    const key = JSON.parse((await cli(['emulator', 'keys', 'create', '--name', 'chaos', '--json'])).stdout);
    const env = {
      SVC_API_KEY: key.secret,
      SVC_API_URL: emulator?.apiUrl as string,
      SVC_EMULATOR_DATA_DIR: dataDir,
    };
    const list = await runCommand(['webhooks', 'deliveries', hookId, '--json'], {env});
    const delivery = (JSON.parse(list.stdout).data as {id: string; event_id: string}[]).find(
      (d) => d.event_id === eventId,
    );
    await control.waitForDelivery({delivery_id: delivery?.id as string, attempts: 2});
    const shown = await runCommand(['webhooks', 'deliveries', 'show', delivery?.id as string], {env});
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/#1 .* scheduled .*200/);
    expect(shown.stdout).toMatch(/#2 .* chaos .*200/);
  });

  it('sets an endpoint its own chaos, and turns it off with --off', async () => {
    const set = await cli(['emulator', 'webhooks', 'chaos', hookId, 'reorder=0.5,delay=1-2s,seed=9']);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toBe(
      `${hookId} on the emulator at ${emulator?.apiUrl}: duplicate=0,reorder=0.5,delay=1-2s,seed=9\n`,
    );
    const off = await cli(['emulator', 'webhooks', 'chaos', hookId, '--off', '--json']);
    expect(JSON.parse(off.stdout)).toEqual({endpoint_id: hookId, chaos: null, source: 'none'});
  });

  it('refuses bad settings and an unknown endpoint with what to do', async () => {
    const bad = await cli(['emulator', 'webhooks', 'chaos', hookId, 'duplicate=2']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/duplicate must be a number from 0 to 1/);
    expect(bad.stderr).toMatch(/duplicate=0\.2,reorder=0\.3,delay=0-5s,seed=42/);
    const unknown = await cli(['emulator', 'webhooks', 'chaos', `we_${'0'.repeat(24)}`, '--json']);
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stdout).error.code).toBe('not_found');
    const start = await runCommand(['emulator', 'start', '--in-memory', '--chaos', 'sometimes']);
    expect(start.code).toBe(2);
    expect(start.stderr).toMatch(/unknown chaos option "sometimes"/);
  });
});
