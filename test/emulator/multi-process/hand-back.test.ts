// The README's promise about stopping: a process that stops (SIGTERM) hands its claims back, and another process
// sharing the database makes those attempts at once, not when the stopped process's leases would have run out.
import {randomBytes} from 'node:crypto';
import type {ServerResponse} from 'node:http';
import {afterAll, beforeAll, expect, it} from 'vitest';
import {type Receiver, startReceiver} from '../delivery/helpers.js';
import {describeNeeding, POSTGRES} from '../../helpers/requirements.js';
import {type EmulatorProcess, freshSchema, type Schema, startProcess} from './cluster.js';

const EVENTS = 5;
/** Leases and idle looks far longer than the test waits: only a hand-back can get the attempts made in time. */
const LEASE_MS = 60_000;
const TUNING = {delivery: {worker: {leaseMs: LEASE_MS, idleMs: 120_000}}};

describeNeeding([POSTGRES], 'a process stopping with claims', () => {
  const vaultKey = randomBytes(32);
  let schema: Schema;
  let stopping: EmulatorProcess | undefined;
  let other: EmulatorProcess | undefined;
  const arrivals: {deliveryId: string; attempt: string; at: number}[] = [];
  const held: ServerResponse[] = [];
  let holding = true;
  let receiver: Receiver;

  beforeAll(async () => {
    schema = await freshSchema();
    receiver = await startReceiver((req, res) => {
      arrivals.push({
        deliveryId: String(req.headers['svc-delivery-id']),
        attempt: String(req.headers['svc-delivery-attempt']),
        at: Date.now(),
      });
      // Left unanswered until the test answers it, or the process that sent it stops.
      if (holding) held.push(res);
      else res.end('ok');
    });
  });

  afterAll(async () => {
    await Promise.all([stopping?.kill(), other?.stop()]);
    await receiver?.close();
    await schema?.drop();
  });

  it('hands them back on SIGTERM, and another process makes those attempts at once', {
    timeout: 60_000,
  }, async () => {
    stopping = await startProcess(schema.url, vaultKey, TUNING);
    await stopping.control.createWebhook({url: `${receiver.url}/hook`, events: ['sandbox.ready']});
    // One event in flight; the rest become due behind it, and once it is answered the process claims them all
    // in one batch and sends the first, which is left unanswered.
    await stopping.control.trigger({type: 'sandbox.ready'});
    await receiver.until(() => held.length === 1, 10_000);
    for (let i = 1; i < EVENTS; i++) await stopping.control.trigger({type: 'sandbox.ready'});
    held.shift()?.end('ok');
    await receiver.until(() => held.length === 1, 10_000);
    const waiting = EVENTS - 1;
    const leased = await schema.admin.query<{n: number}>(
      `SELECT count(*)::int AS n FROM deliveries WHERE status = 'pending' AND locked_until > now()`,
    );
    expect(leased.rows[0]?.n).toBe(waiting);
    const cutShort = arrivals.at(-1)?.deliveryId;

    other = await startProcess(schema.url, vaultKey, TUNING);
    holding = false;
    const stoppedAt = Date.now();
    await stopping.stop();
    for (const res of held) res.destroy();

    const after = () => arrivals.filter((a) => a.at >= stoppedAt);
    await receiver.until(() => new Set(after().map((a) => a.deliveryId)).size === waiting, 10_000);
    // Every claim was taken up by the other process well before any lease of the stopped one ended.
    expect(Math.max(...after().map((a) => a.at)) - stoppedAt).toBeLessThan(LEASE_MS / 4);
    // The attempt cut short was not counted: the other process makes it as attempt 1 again.
    expect(after().map((a) => a.attempt)).toEqual(Array(waiting).fill('1'));
    expect(after().map((a) => a.deliveryId)).toContain(cutShort);
    // Each recorded by the other process as succeeded at its first attempt.
    const {rows} = await schema.admin.query<{id: string}>('SELECT id FROM deliveries');
    expect(rows).toHaveLength(EVENTS);
    for (const {id} of rows) {
      const detail = await (other as EmulatorProcess).control.waitForDelivery({
        delivery_id: id,
        status: 'succeeded',
        timeout: 10_000,
      });
      expect(detail.delivery.attempts).toBe(1);
    }
  });
});
