// The delivery engine inside a real emulator: control routes, the deliveries API, and the SSRF guard at delivery time.
import type {LookupAddress} from 'node:dns';
import {afterEach, describe, expect, it} from 'vitest';
import {type RunningEmulator, startEmulator} from '../../../src/emulator/index.js';
import {EventSchema} from '../../../src/schemas/index.js';
import {verifySignature} from '../../../src/webhooks/index.js';
import {type Receiver, startReceiver} from './helpers.js';

let emu: RunningEmulator | undefined;
let receiver: Receiver | undefined;
afterEach(async () => {
  await emu?.stop();
  emu = undefined;
  await receiver?.close();
  receiver = undefined;
});

const START = new Date('2031-05-01T12:00:00.000Z');

async function start(extra: Parameters<typeof startEmulator>[0] = {}) {
  emu = await startEmulator({
    port: 0,
    inMemory: true,
    clock: 'manual',
    clockStart: START,
    allowLocalEndpoints: true,
    ...extra,
  });
  return emu;
}

async function api<T>(e: RunningEmulator, key: string, path: string): Promise<{status: number; body: T}> {
  const res = await fetch(`${e.apiUrl}${path}`, {headers: {authorization: `Bearer ${key}`}});
  return {status: res.status, body: (await res.json()) as T};
}

interface DeliveryItem {
  id: string;
  event_id: string;
  event_type: string;
  status: string;
  attempts: number;
  next_attempt_at: string | null;
  last_status_code: number | null;
}

describe('the time in signatures', () => {
  const tOf = (header: unknown) => Number(/t=(\d+)/.exec(String(header))?.[1]);

  it('is the real time by default, however far a manual clock has moved, so a real-clock receiver accepts it', async () => {
    receiver = await startReceiver();
    const e = await start();
    const hook = await e.control.createWebhook({url: `${receiver.url}/in`, events: ['sandbox.ready']});
    await e.control.advanceClock('1d');
    const before = Math.floor(Date.now() / 1000);
    await e.control.trigger({type: 'sandbox.ready'});
    await (receiver as Receiver).received(1);
    const req = receiver.requests[0];
    const t = tOf(req?.headers['svc-signature']);
    expect(t).toBeGreaterThanOrEqual(before);
    expect(t).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
    // Verified as examples/receiver does: against its own (real) clock and the default tolerance.
    verifySignature({
      payload: req?.body as Buffer,
      header: String(req?.headers['svc-signature']),
      secret: hook.secret,
    });
    // The event, the schedule and the tables stay on the emulator's clock.
    const event = JSON.parse(req?.body.toString('utf8') ?? '{}') as {created_at: string};
    expect(event.created_at).toBe(new Date(START.getTime() + 86_400_000).toISOString());
    // The receiver has the request before the emulator has recorded its answer: waited for, not read at once.
    const detail = await e.control.waitForDelivery({
      delivery_id: String(req?.headers['svc-delivery-id']),
      attempts: 1,
    });
    expect(detail.attempts[0]).toMatchObject({signature_t: t, started_at: event.created_at});
  });

  it("is the emulator's clock with signatureClock 'emulator', for receivers whose tests share it", async () => {
    receiver = await startReceiver();
    const e = await start({signatureClock: 'emulator'});
    await e.control.createWebhook({url: `${receiver.url}/in`, events: ['sandbox.ready']});
    await e.control.advanceClock('1d');
    await e.control.trigger({type: 'sandbox.ready'});
    await (receiver as Receiver).received(1);
    expect(tOf(receiver.requests[0]?.headers['svc-signature'])).toBe(START.getTime() / 1000 + 86_400);
  });
});

describe('trigger through the control surface', () => {
  it('delivers a signed event of the exact shape and lists the delivery with its attempts', async () => {
    receiver = await startReceiver((_q, res, i) => {
      res.writeHead(i === 0 ? 500 : 204);
      res.end();
    });
    const e = await start();
    const hook = await e.control.createWebhook({url: `${receiver.url}/in`, events: ['sandbox.stopped']});
    const key = await e.control.createKey({name: 'reader'});

    const move = await e.control.trigger({type: 'sandbox.stopped'});
    expect(move.deliveries).toBe(1);
    expect(move.sandbox.status).toBe('stopped');
    await (receiver as Receiver).received(1);

    const req = receiver.requests[0];
    const event = JSON.parse(req?.body.toString('utf8') ?? '');
    expect(EventSchema.parse(event)).toEqual(event);
    expect(Object.keys(event.data.sandbox).sort()).toEqual(['desired_state', 'id', 'name', 'status']);
    expect(event).toMatchObject({type: 'sandbox.stopped', org_id: e.orgId, created_at: START.toISOString()});
    expect(event.id).toBe(move.event?.id);
    // The event is of the emulator's time; its signature is of the real time, which the receiver's clock knows.
    verifySignature({
      payload: req?.body as Buffer,
      header: String(req?.headers['svc-signature']),
      secret: hook.secret,
    });

    await e.control.waitForDelivery({event_id: event.id, attempts: 1});
    const first = (await api<{data: DeliveryItem[]}>(e, key.secret, `/v1/webhooks/${hook.id}/deliveries`))
      .body.data;
    expect(first).toHaveLength(1);
    expect(first[0]).toMatchObject({
      event_id: event.id,
      event_type: 'sandbox.stopped',
      status: 'pending',
      attempts: 1,
      last_status_code: 500,
      next_attempt_at: new Date(START.getTime() + 30_000).toISOString(),
    });

    await e.control.advanceClock('30s');
    await (receiver as Receiver).received(2);
    expect(receiver.requests[1]?.headers['svc-delivery-attempt']).toBe('2');
    await e.control.waitForDelivery({event_id: event.id, status: 'succeeded'});
    const done = (await api<{data: DeliveryItem[]}>(e, key.secret, `/v1/webhooks/${hook.id}/deliveries`)).body
      .data[0];
    expect(done).toMatchObject({
      status: 'succeeded',
      attempts: 2,
      last_status_code: 204,
      next_attempt_at: null,
    });
  });

  it('moves a named sandbox, keeps last_error in the event when given, and refuses bad input with 4xx', async () => {
    receiver = await startReceiver();
    const e = await start();
    await e.control.createWebhook({
      url: receiver.url,
      events: ['sandbox.ready', 'sandbox.stopped', 'sandbox.error'],
    });
    const created = await e.control.createSandbox({name: 'box'});
    expect(created.event?.type).toBe('sandbox.ready');
    const crashed = await e.control.sandboxAction(created.sandbox.id, 'crash', {last_error: 'kernel panic'});
    expect(crashed.event?.data.sandbox).toEqual({
      id: created.sandbox.id,
      name: 'box',
      status: 'stopped',
      desired_state: 'running',
      last_error: 'kernel panic',
    });
    const standby = await e.control.sandboxAction(
      (await e.control.sandboxAction(created.sandbox.id, 'resume')).sandbox.id,
      'standby',
    );
    expect(standby.event).toBeNull();
    const triggered = await e.control.trigger({
      type: 'sandbox.error',
      sandbox_id: created.sandbox.id,
      last_error: 'disk full',
    });
    expect(triggered.sandbox).toMatchObject({status: 'error', last_error: 'disk full'});
    await (receiver as Receiver).received(4);
    expect(receiver.requests.map((r) => r.headers['svc-event-type'])).toEqual([
      'sandbox.ready',
      'sandbox.stopped',
      'sandbox.ready',
      'sandbox.error',
    ]);

    const headers = {authorization: `Bearer ${e.adminToken}`, 'content-type': 'application/json'};
    const bad = [
      ['/_emulator/trigger', {type: 'sandbox.exploded'}, 400],
      ['/_emulator/trigger', {type: 'sandbox.ready', sandbox_id: 'sbx_nope'}, 404],
      ['/_emulator/trigger', {type: 'sandbox.ready', extra: 1}, 400],
      ['/_emulator/sandboxes', {expires_in: 'soon'}, 400],
      [`/_emulator/sandboxes/${created.sandbox.id}/explode`, {}, 404],
      [`/_emulator/sandboxes/${created.sandbox.id}/wake`, {}, 409],
    ] as const;
    for (const [path, body, status] of bad) {
      const res = await fetch(`${e.apiUrl}${path}`, {method: 'POST', headers, body: JSON.stringify(body)});
      expect(res.status, path).toBe(status);
      expect(((await res.json()) as {error: {code: string}}).error.code).toBeTypeOf('string');
    }
    const notJson = await fetch(`${e.apiUrl}/_emulator/trigger`, {method: 'POST', headers, body: '{'});
    expect(notJson.status).toBe(400);
    const key = await e.control.createKey({name: 'k'});
    const withKey = await fetch(`${e.apiUrl}/_emulator/trigger`, {
      method: 'POST',
      headers: {authorization: `Bearer ${key.secret}`, 'content-type': 'application/json'},
      body: JSON.stringify({type: 'sandbox.ready'}),
    });
    expect(withKey.status).toBe(401);
  });

  it('expires a sandbox when the clock passes expires_at and sends sandbox.expired with expires_at', async () => {
    receiver = await startReceiver();
    const e = await start();
    await e.control.createWebhook({url: receiver.url, events: ['sandbox.expired']});
    const {sandbox} = await e.control.createSandbox({expires_in: '10m'});
    await e.control.advanceClock('9m');
    await e.control.advanceClock('59s');
    await e.control.advanceClock('1s');
    await (receiver as Receiver).received(1);
    const event = JSON.parse(receiver.requests[0]?.body.toString('utf8') ?? '');
    expect(event.data.sandbox).toMatchObject({
      id: sandbox.id,
      status: 'deleting',
      expires_at: new Date(START.getTime() + 600_000).toISOString(),
    });
    expect(event.created_at).toBe(new Date(START.getTime() + 600_000).toISOString());
  });

  it('expires more sandboxes at one move than a sweep reads at once, and each of the rest at its own time', async () => {
    const e = await start();
    // The sweep reads due sandboxes 100 at a time: 105 fall due together, 3 later.
    for (let i = 0; i < 108; i++) await e.control.createSandbox({expires_in: i < 105 ? '1h' : '5h'});
    const statuses = async () =>
      (
        await e.db.query<{status: string; n: number}>(
          'SELECT status, count(*)::int AS n FROM sandboxes WHERE expires_at IS NOT NULL GROUP BY status ORDER BY status',
        )
      ).rows;
    await e.control.advanceClock('2h', {settle: true});
    expect(await statuses()).toEqual([
      {status: 'deleting', n: 105},
      {status: 'running', n: 3},
    ]);
    await e.control.advanceClock('3h', {settle: true});
    expect(await statuses()).toEqual([{status: 'deleting', n: 108}]);
  });

  it('fans an event out only to endpoints subscribed at that moment and purges after 30 days', async () => {
    receiver = await startReceiver();
    const e = await start();
    const ready = await e.control.createWebhook({url: `${receiver.url}/ready`, events: ['sandbox.ready']});
    await e.control.createWebhook({url: `${receiver.url}/error`, events: ['sandbox.error']});
    const move = await e.control.trigger({type: 'sandbox.ready'});
    expect(move.deliveries).toBe(1);
    const late = await e.control.createWebhook({url: `${receiver.url}/late`, events: ['sandbox.ready']});
    await (receiver as Receiver).received(1);
    expect(receiver.requests[0]?.url).toBe('/ready');
    const count = async (endpoint: string) =>
      Number(
        (
          await e.db.query<{n: string}>('SELECT count(*) AS n FROM deliveries WHERE endpoint_id = $1', [
            endpoint,
          ])
        ).rows[0]?.n,
      );
    expect(await count(late.id)).toBe(0);
    expect(await count(ready.id)).toBe(1);
    await e.control.advanceClock('30d');
    // Settled: the move returns once the worker's next pass, whose chores run the retention sweep, is done.
    await e.control.advanceClock('1m', {settle: true});
    expect(await count(ready.id)).toBe(0);
    expect((await e.db.query('SELECT id FROM events')).rows).toHaveLength(0);
    expect((await e.db.query('SELECT delivery_id FROM delivery_attempts')).rows).toHaveLength(0);
  });
});

describe('SSRF at delivery time', () => {
  it('refuses a host that resolved publicly at registration and to loopback at delivery (DNS rebinding)', async () => {
    receiver = await startReceiver();
    let answer: LookupAddress[] = [{address: '93.184.216.34', family: 4}];
    const e = await start({allowLocalEndpoints: false, lookup: async () => answer});
    const hook = await e.control.createWebhook({
      url: `https://rebind.example.com:${receiver.port}/hook`,
      events: ['sandbox.ready'],
    });
    answer = [{address: '127.0.0.1', family: 4}];
    const moved = await e.control.trigger({type: 'sandbox.ready'});
    const attempts = async () =>
      (
        await e.db.query<{error: string | null}>(
          'SELECT a.error FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id WHERE d.endpoint_id = $1',
          [hook.id],
        )
      ).rows;
    await e.control.waitForDelivery({event_id: moved.event?.id as string, attempts: 1});
    expect((await attempts())[0]?.error).toMatch(/public address/);
    expect(receiver.requests).toHaveLength(0);
  });
});
