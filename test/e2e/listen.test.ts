// `svc listen` for real: an emulator process, the relay stream, a local receiver, retries that follow what the
// receiver answered, catch-up after the listener was away, and reconnection after an emulator restart. The tests
// that need no emulator flags share one emulator process; a test with flags, or one that restarts it, has its own.
import {createHmac} from 'node:crypto';
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, afterEach, describe, expect, it} from 'vitest';
import {EmulatorControl} from '../../src/client/emulator-control.js';
import {readRuntimeFile} from '../../src/emulator-layout/runtime.js';
import {verifySignature} from '../../src/webhooks/index.js';
import {type Receiver, startReceiver} from '../emulator/delivery/helpers.js';
import {startHoldReceiver} from '../emulator/delivery/hold-receiver.js';
import {
  type EmulatorProcess,
  type Spawned,
  spawnCli,
  startEmulatorProcess,
  stopProcess,
} from '../emulator/delivery/processes.js';
import {runCommand} from '../helpers/run-cli.js';

let dataDir: string | undefined;
let processes: Spawned[] = [];
let receiver: Receiver | undefined;

/**
 * The emulator the tests that need no flags of their own share: each test starts from a relay no run has held (the
 * one before it is stopped and its relay endpoint deleted, so the next run makes a new one with a new secret).
 */
let shared: {dir: string; emulator: EmulatorProcess} | undefined;

afterEach(async () => {
  for (const p of processes.reverse()) await stopProcess(p);
  processes = [];
  await receiver?.close();
  receiver = undefined;
  if (dataDir && dataDir === shared?.dir) {
    const c = await control();
    const relay = await c.registerRelay();
    await c.deleteWebhook(relay.endpoint_id);
  } else if (dataDir) {
    await rm(dataDir, {recursive: true, force: true});
  }
  dataDir = undefined;
});

afterAll(async () => {
  if (!shared) return;
  await stopProcess(shared.emulator);
  await rm(shared.dir, {recursive: true, force: true});
});

/** An emulator process of the test's own: with flags, or one the test stops and starts again. */
async function emulator(extra: string[] = []): Promise<EmulatorProcess> {
  dataDir ??= await mkdtemp(join(tmpdir(), 'svc-listen-'));
  const e = await startEmulatorProcess(dataDir, extra);
  processes.push(e);
  return e;
}

/** The file's shared emulator (a real clock, no flags), started by the first test that asks for it. */
async function sharedEmulator(): Promise<void> {
  if (!shared) {
    const dir = await mkdtemp(join(tmpdir(), 'svc-listen-shared-'));
    shared = {dir, emulator: await startEmulatorProcess(dir, [])};
  }
  dataDir = shared.dir;
}

function listenProcess(args: string[]): Spawned {
  const p = spawnCli(['listen', '--data-dir', dataDir as string, ...args]);
  processes.push(p);
  return p;
}

async function control(): Promise<EmulatorControl> {
  const info = await readRuntimeFile(dataDir as string);
  if (!info) throw new Error('no emulator.json');
  return new EmulatorControl({url: info.api_url, adminToken: info.admin_token});
}

const parse = (line: string) => JSON.parse(line) as Record<string, unknown>;

describe('svc listen --json', () => {
  it('forwards signed deliveries byte for byte, in order, and retries follow the local answer', async () => {
    receiver = await startReceiver((req, res) => {
      // The first attempt of the first event fails; everything else succeeds.
      const first =
        receiver?.requests.filter((r) => r.headers['svc-event-id'] === req.headers['svc-event-id']).length ===
        1;
      const fail = first && receiver?.requests.length === 1;
      res.writeHead(fail ? 503 : 200);
      res.end(fail ? 'busy' : 'thanks');
    });
    await emulator(['--clock', 'manual']);
    const listener = listenProcess(['--forward-to', `${receiver.url}/hooks`, '--json']);
    const ready = parse(await listener.line((l) => l.includes('"ready"')));
    const secret = ready.secret as string;
    expect(secret).toMatch(/^whsec_/);
    expect(ready.forward_to).toBe(`${receiver.url}/hooks`);

    const triggered: string[] = [];
    for (const type of ['sandbox.ready', 'sandbox.stopped', 'sandbox.error']) {
      const r = await runCommand(['trigger', type, '--data-dir', dataDir as string, '--json']);
      expect(r.code, r.stderr).toBe(0);
      triggered.push((JSON.parse(r.stdout) as {event: {id: string}}).event.id);
    }
    // First event failed once; the other two follow in order.
    await (receiver as Receiver).received(3);
    expect(receiver.requests.map((r) => r.headers['svc-event-id'])).toEqual(triggered);

    const c = await control();
    const clockNow = Math.floor(Date.parse((await c.clock()).now) / 1000);
    for (const req of receiver.requests) {
      const header = String(req.headers['svc-signature']);
      verifySignature({payload: req.body, header, secret, now: clockNow});
      const t = /t=(\d+)/.exec(header)?.[1] as string;
      const v1 = createHmac('sha256', secret).update(`${t}.`).update(req.body).digest('hex');
      expect(header).toBe(`t=${t},v1=${v1}`);
      const event = JSON.parse(req.body.toString('utf8')) as {id: string; type: string};
      expect(event.id).toBe(req.headers['svc-event-id']);
      expect(req.headers['svc-event-type']).toBe(event.type);
      expect(req.headers['svc-delivery-id']).toMatch(/^dlv_/);
      expect(req.headers['content-type']).toBe('application/json');
    }
    expect(receiver.requests[0]?.headers['svc-delivery-attempt']).toBe('1');

    await c.advanceClock('30s');
    await (receiver as Receiver).received(4);
    const retry = receiver.requests[3];
    expect(retry?.headers['svc-event-id']).toBe(triggered[0]);
    expect(retry?.headers['svc-delivery-attempt']).toBe('2');
    expect(retry?.body.equals(receiver.requests[0]?.body as Buffer)).toBe(true);

    const key = await c.createKey({name: 'reader'});
    const api = (await readRuntimeFile(dataDir as string))?.api_url;
    const deliveries = async () =>
      (
        (await (
          await fetch(`${api}/v1/webhooks/${ready.endpoint_id}/deliveries`, {
            headers: {authorization: `Bearer ${key.secret}`},
          })
        ).json()) as {data: {event_id: string; status: string; attempts: number; last_status_code: number}[]}
      ).data;
    for (const id of triggered) await c.waitForDelivery({event_id: id, status: 'succeeded'});
    const firstDelivery = (await deliveries()).find((d) => d.event_id === triggered[0]);
    expect(firstDelivery).toMatchObject({status: 'succeeded', attempts: 2, last_status_code: 200});

    const lines = listener.stdoutLines.map(parse);
    expect(lines.filter((l) => l.type === 'event').map((l) => l.event_id)).toEqual([
      ...triggered,
      triggered[0],
    ]);
    expect(lines.filter((l) => l.type === 'response').map((l) => l.status)).toEqual([503, 200, 200, 200]);
    // The secret appears only in the ready line.
    expect(listener.stdoutLines.filter((l) => l.includes(secret))).toHaveLength(1);
    expect(listener.stderr()).not.toContain(secret);
  });

  it('keeps its secret across runs, catches up on what it missed, and reconnects after an emulator restart', async () => {
    receiver = await startReceiver();
    const first = await emulator();
    const printed = await runCommand(['listen', '--print-secret', '--data-dir', dataDir as string]);
    expect(printed.code, printed.stderr).toBe(0);
    const secret = printed.stdout.trim();
    expect(secret).toMatch(/^whsec_/);

    // Nobody listening: the delivery waits instead of burning attempts.
    const missed = await runCommand(['trigger', 'sandbox.ready', '--data-dir', dataDir as string, '--json']);
    const missedId = (JSON.parse(missed.stdout) as {event: {id: string}}).event.id;

    const listener = listenProcess([
      '--forward-to',
      receiver.url,
      '--json',
      '--events',
      'sandbox.ready,sandbox.expired',
    ]);
    const ready = parse(await listener.line((l) => l.includes('"ready"')));
    expect(ready.secret).toBe(secret);
    expect(ready.events).toEqual(['sandbox.ready', 'sandbox.expired']);
    await (receiver as Receiver).receivedEvent(missedId);
    expect(receiver.requests[0]?.headers['svc-delivery-attempt']).toBe('1');

    await stopProcess(first);
    await emulator();
    await listener.stderrUntil('Reconnected', 20_000);
    const after = await runCommand(['trigger', 'sandbox.ready', '--data-dir', dataDir as string, '--json']);
    const afterId = (JSON.parse(after.stdout) as {event: {id: string}}).event.id;
    await (receiver as Receiver).receivedEvent(afterId);
    const req = receiver.requests.find((r) => r.headers['svc-event-id'] === afterId);
    verifySignature({payload: req?.body as Buffer, header: String(req?.headers['svc-signature']), secret});

    // Not subscribed with --events: never forwarded. Deliveries to one endpoint go in order, so once an event
    // triggered after it has arrived, a forwarded sandbox.error would have arrived first.
    const unsubscribed = await runCommand(['trigger', 'sandbox.error', '--data-dir', dataDir as string]);
    expect(unsubscribed.code, unsubscribed.stderr).toBe(0);
    const barrier = await runCommand(['trigger', 'sandbox.ready', '--data-dir', dataDir as string, '--json']);
    const barrierId = (JSON.parse(barrier.stdout) as {event: {id: string}}).event.id;
    await (receiver as Receiver).receivedEvent(barrierId);
    expect(receiver.requests.map((r) => r.headers['svc-event-type'])).toEqual(
      receiver.requests.map(() => 'sandbox.ready'),
    );
  });
});

describe('svc emulator start --clock manual and a receiver on a real clock', () => {
  const triggerAfterADay = async () => {
    const moved = await runCommand(['emulator', 'clock', 'advance', '1d', '--data-dir', dataDir as string]);
    expect(moved.code, moved.stderr).toBe(0);
    const r = await runCommand(['trigger', 'sandbox.ready', '--data-dir', dataDir as string]);
    expect(r.code, r.stderr).toBe(0);
    await (receiver as Receiver).received(1);
    return receiver?.requests[0] as Receiver['requests'][number];
  };

  it('signs with the real time by default, so the receiver accepts deliveries a day ahead', async () => {
    receiver = await startReceiver();
    await emulator(['--clock', 'manual']);
    const listener = listenProcess(['--forward-to', receiver.url, '--json']);
    const secret = parse(await listener.line((l) => l.includes('"ready"'))).secret as string;
    const req = await triggerAfterADay();
    // The receiver's own clock, as examples/receiver checks it.
    verifySignature({payload: req.body, header: String(req.headers['svc-signature']), secret});
  });

  it('signs with the emulator clock with --signature-clock emulator', async () => {
    receiver = await startReceiver();
    await emulator(['--clock', 'manual', '--signature-clock', 'emulator']);
    const listener = listenProcess(['--forward-to', receiver.url, '--json']);
    const secret = parse(await listener.line((l) => l.includes('"ready"'))).secret as string;
    const req = await triggerAfterADay();
    const header = String(req.headers['svc-signature']);
    expect(() => verifySignature({payload: req.body, header, secret})).toThrow(/tolerance|clock/i);
    const clockNow = Date.parse((await (await control()).clock()).now);
    verifySignature({payload: req.body, header, secret, now: new Date(clockNow)});
  });
});

describe('one svc listen per relay', () => {
  it('refuses a second listen, naming the process that holds the relay, and the first keeps forwarding', async () => {
    receiver = await startReceiver();
    await sharedEmulator();
    const first = listenProcess(['--forward-to', receiver.url, '--json']);
    const ready = parse(await first.line((l) => l.includes('"ready"')));
    expect(ready.new_secret).toBe(true);
    // A forwarded delivery shows the first one attached before the second starts.
    await runCommand(['trigger', 'sandbox.ready', '--data-dir', dataDir as string]);
    await (receiver as Receiver).received(1);

    const second = listenProcess(['--forward-to', receiver.url]);
    expect(await second.exited).toBe(2);
    expect(second.stderr()).not.toContain('Ready!');
    expect(second.stderr()).not.toContain('›');
    expect(second.stderr()).toContain(
      `already forwarded by another svc listen (process ${first.child.pid} on `,
    );
    expect(second.stderr()).toContain(`kill ${first.child.pid}`);
    // The first was never knocked off: no reconnection, and it still forwards.
    const r = await runCommand(['trigger', 'sandbox.ready', '--data-dir', dataDir as string, '--json']);
    const id = (JSON.parse(r.stdout) as {event: {id: string}}).event.id;
    await (receiver as Receiver).receivedEvent(id);
    expect(first.stderr()).not.toMatch(/Lost the emulator|Reconnected/);
    expect(first.stdoutLines.map(parse).filter((l) => l.type === 'disconnected')).toEqual([]);
  });

  it('--take-over takes the relay once: both say so, the old one stops, and nothing takes it back', async () => {
    receiver = await startReceiver();
    await sharedEmulator();
    const first = listenProcess(['--forward-to', `${receiver.url}/first`]);
    await first.stderrUntil('Ready!');
    await runCommand(['trigger', 'sandbox.ready', '--data-dir', dataDir as string]);
    await (receiver as Receiver).until((r) => r.some((q) => q.url === '/first'));

    const second = listenProcess(['--forward-to', `${receiver.url}/second`, '--take-over', '--json']);
    const ready = parse(await second.line((l) => l.includes('"ready"')));
    expect(ready.took_over_from).toMatchObject({pid: first.child.pid});
    expect(await first.exited).toBe(1);
    expect(first.stderr()).toContain(`svc listen process ${second.child.pid} on `);
    expect(first.stderr()).toContain('took this relay over');
    expect(first.stderr()).not.toMatch(/Lost the emulator|reconnecting/);

    // Deliveries now reach the new holder only.
    const before = receiver.requests.length;
    const r = await runCommand(['trigger', 'sandbox.stopped', '--data-dir', dataDir as string, '--json']);
    const id = (JSON.parse(r.stdout) as {event: {id: string}}).event.id;
    await (receiver as Receiver).receivedEvent(id);
    expect(receiver.requests.slice(before).map((q) => q.url)).toEqual(['/second']);

    // A later run without the flag is refused, naming the new holder, and is told how to take it over.
    const third = listenProcess(['--forward-to', `${receiver.url}/third`]);
    expect(await third.exited).toBe(2);
    expect(third.stderr()).toContain(`(process ${second.child.pid} on `);
    expect(third.stderr()).toContain('--take-over');
    expect(second.stdoutLines.map(parse).filter((l) => l.type === 'disconnected')).toEqual([]);
  });

  it('stops with a message when its relay endpoint is deleted; the next run announces a new secret', async () => {
    receiver = await startReceiver();
    await sharedEmulator();
    const first = listenProcess(['--forward-to', receiver.url]);
    await first.stderrUntil('Ready!');
    expect(first.stderr()).toContain('(a new relay endpoint, so a new secret');
    const oldSecret = /secret is (whsec_\S+)/.exec(first.stderr())?.[1];
    const c = await control();
    const relay = await c.registerRelay();
    expect(relay.created).toBe(false);
    // A forwarded delivery shows the listener attached before the relay is deleted.
    await runCommand(['trigger', 'sandbox.ready', '--data-dir', dataDir as string]);
    await (receiver as Receiver).received(1);

    await c.deleteWebhook(relay.endpoint_id);
    expect(await first.exited).toBe(1);
    expect(first.stderr()).toContain(`the relay endpoint ${relay.endpoint_id} was deleted`);
    expect(first.stderr()).toMatch(/for a new relay endpoint; it gets a new signing secret/);

    const again = listenProcess(['--forward-to', receiver.url]);
    await again.stderrUntil('Ready!');
    expect(again.stderr()).toContain('(a new relay endpoint, so a new secret');
    expect(again.stderr()).not.toContain(oldSecret);
    await stopProcess(again);
    // Restarted at once: the run just stopped no longer holds the relay, even before its stream's close is seen.
    const third = listenProcess(['--forward-to', receiver.url]);
    await third.stderrUntil('Ready!');
    expect(third.stderr()).toContain('(the same as in earlier runs');
  });
});

describe('svc listen for a person', () => {
  it('stops at once on Ctrl+C while the local server holds a delivery: the attempt is recorded as failed, to be retried', async () => {
    await sharedEmulator();
    const held = await startHoldReceiver();
    try {
      const listener = listenProcess(['--forward-to', `${held.url}/hooks`, '--json']);
      await listener.line((l) => l.includes('"ready"'));
      const r = await runCommand(['trigger', 'sandbox.ready', '--data-dir', dataDir as string, '--json']);
      expect(r.code, r.stderr).toBe(0);
      const eventId = (JSON.parse(r.stdout) as {event: {id: string}}).event.id;
      await held.arrived(1);
      listener.child.kill('SIGINT');
      // The emulator hears the stream end: the attempt is recorded as failed, and is retried on its schedule.
      const detail = await (await control()).waitForDelivery({event_id: eventId, attempts: 1});
      expect(detail.delivery.status).toBe('pending');
      expect(detail.attempts[0]?.error).toBe('relay listener disconnected');
      // The forward was cut short with the stream: an answer the local server gives now reaches no one.
      held.release();
      expect(await listener.exited).toBe(0);
      expect(listener.stdoutLines.map(parse).filter((l) => l.type === 'response')).toEqual([]);
      expect(listener.stderr()).not.toContain('could not report');
    } finally {
      await held.close();
    }
  });

  it('prints --> and <-- lines, the secret once on stderr, and a hint when nothing listens locally', async () => {
    receiver = await startReceiver();
    const deadUrl = `${receiver.url}/gone`;
    await receiver.close();
    receiver = undefined;
    await sharedEmulator();
    const listener = listenProcess(['--forward-to', deadUrl.replace('127.0.0.1', 'localhost')]);
    await listener.stderrUntil('Ready!');
    expect(listener.stderr()).toMatch(/Ready! Your webhook signing secret is whsec_\S+/);
    const r = await runCommand(['trigger', 'sandbox.ready', '--data-dir', dataDir as string, '--json']);
    const id = (JSON.parse(r.stdout) as {event: {id: string}}).event.id;
    await listener.line((l) => l.startsWith('<--'));
    expect(listener.stdoutLines[0]).toBe(`--> sandbox.ready [${id}]`);
    expect(listener.stdoutLines[1]).toMatch(
      new RegExp(`^<-- \\[ERR\\] POST http://localhost:\\d+/gone \\(\\d+ ms\\) \\[${id}\\]`),
    );
    await listener.stderrUntil('is your server running?');
    expect(listener.stderr()).toMatch(/try --forward-to http:\/\/127\.0\.0\.1:\d+\/gone/);
  });

  it('refuses a missing or malformed --forward-to and unknown event types as usage errors', async () => {
    await sharedEmulator();
    const noUrl = await runCommand(['listen', '--data-dir', dataDir as string]);
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toMatch(/--forward-to is required/);
    const bad = await runCommand([
      'listen',
      '--forward-to',
      'nope',
      '--data-dir',
      dataDir as string,
      '--json',
    ]);
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stdout)).toMatchObject({error: {code: 'usage'}});
    const events = await runCommand([
      'listen',
      '--forward-to',
      'http://127.0.0.1:1/',
      '--events',
      'sandbox.boom',
      '--data-dir',
      dataDir as string,
    ]);
    expect(events.code).toBe(2);
    expect(events.stderr).toMatch(/unknown event type/);
    const both = await runCommand([
      'listen',
      '--print-secret',
      '--take-over',
      '--data-dir',
      dataDir as string,
    ]);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--take-over does not go with it/);
  });
});
