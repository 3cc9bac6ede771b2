// Backends: on PostgreSQL org clock moves keep their lock and transaction, and recorded attempts reach waits
// through the same engine as on PGlite; both must still answer every org's wait with its own delivery.
// A wait for a delivery is woken by changes to its own delivery (or event), not by every attempt recorded in the
// emulator: with a hundred orgs each waiting for its own delivery, each recorded attempt used to make every wait
// read the database again. The emulator counts the waits its changes woke (engine.changes.wakes), which shows
// it without timing anything. On a shared PostgreSQL, word from other processes names no delivery and wakes
// every wait, so the count is checked on PGlite; the waits themselves are checked on both.
// What a wait answers is the delivery's detail read in one statement (its record, its event and every attempt, the
// attempts as JSON from the database), checked here against the stored rows; a wait for a delivery past the
// retention window is refused as not found, as the detail is, and one for an id nothing has runs out of time.
import {afterAll, beforeAll, expect, it} from 'vitest';
import {EmulatorControlError} from '../../../src/client/index.js';
import {RETENTION_MS, RETRY_WAITS_MS} from '../../../src/definitions.js';
import {type RunningEmulator, startEmulator} from '../../../src/emulator/index.js';
import {waitForDelivery} from '../../../src/emulator/ops/wait.js';
import {EMULATOR_BACKENDS} from '../../helpers/emulator-backends.js';
import {describeEachBackend} from '../../helpers/requirements.js';
import {answer, type Receiver, startReceiver} from '../delivery/helpers.js';

const START = new Date('2031-07-01T09:00:00.000Z');
const FIRST_WAIT_MS = RETRY_WAITS_MS[0] as number;
const LONG_MS = 60_000;

describeEachBackend(EMULATOR_BACKENDS, 'waits woken by their own changes ($name)', (backend) => {
  let emu: RunningEmulator;
  let receiver: Receiver;
  let dispose: () => Promise<void> = async () => {};
  beforeAll(async () => {
    const storage = await backend.options();
    dispose = storage.dispose;
    emu = await startEmulator({
      ...storage.options,
      port: 0,
      clock: 'manual',
      clockStart: START,
      allowLocalEndpoints: true,
    });
    receiver = await startReceiver(answer(503));
  });
  afterAll(async () => {
    await receiver?.close();
    await emu?.stop();
    await dispose();
  });

  /** An org with an endpoint that answers 503, and one event whose first attempt has been recorded. */
  async function orgWithFirstAttempt() {
    const org = await emu.control.createOrg({name: 'waits'});
    await emu.control.createWebhook({url: receiver.url, events: ['sandbox.error'], org_id: org.id});
    const move = await emu.control.trigger({type: 'sandbox.error', org_id: org.id});
    const eventId = move.event?.id as string;
    const first = await emu.control.waitForDelivery({event_id: eventId, attempts: 1});
    return {org, eventId, deliveryId: first.delivery.id};
  }

  // Only where this process hears every change itself (see the top of the file): registered on PGlite alone.
  if (backend.name === 'PGlite') {
    it("an attempt recorded in one org wakes no wait of another org's delivery or event", async () => {
      const [a, b] = await Promise.all([orgWithFirstAttempt(), orgWithFirstAttempt()]);
      const changes = emu.context.engine.changes;
      // Both kinds of wait for b's second attempt, held in this process (the op the control route runs).
      const byDelivery = waitForDelivery(emu.context, {
        delivery_id: b.deliveryId,
        attempts: 2,
        timeout_ms: LONG_MS,
      });
      const byEvent = waitForDelivery(emu.context, {event_id: b.eventId, attempts: 2, timeout_ms: LONG_MS});
      const woken = changes.wakes;
      // a's retry is made and recorded (settle answers once it is).
      await emu.control.advanceClock(`${FIRST_WAIT_MS}ms`, {org: a.org.id, settle: true});
      const aDetail = await emu.control.delivery(a.deliveryId);
      expect(aDetail.attempts).toHaveLength(2);
      expect(changes.wakes).toBe(woken);
      // b's own retry wakes both of its waits, which then answer.
      await emu.control.advanceClock(`${FIRST_WAIT_MS}ms`, {org: b.org.id, settle: true});
      const [d1, d2] = await Promise.all([byDelivery, byEvent]);
      expect(d1.delivery.id).toBe(b.deliveryId);
      expect(d2.delivery.id).toBe(b.deliveryId);
      expect(d1.attempts).toHaveLength(2);
      expect(changes.wakes).toBeGreaterThanOrEqual(woken + 2);
    });
  }

  it('waits of many orgs at once each answer with their own delivery once its attempt is recorded', async () => {
    const orgs = await Promise.all(Array.from({length: 6}, () => orgWithFirstAttempt()));
    const waits = orgs.map((o, i) =>
      emu.control.waitForDelivery(
        i % 2 === 0
          ? {delivery_id: o.deliveryId, attempts: 2, timeout_ms: LONG_MS}
          : {event_id: o.eventId, attempts: 2, timeout_ms: LONG_MS},
      ),
    );
    // Every org's clock moved at once: its moves run beside one another.
    await Promise.all(orgs.map((o) => emu.control.advanceClock(`${FIRST_WAIT_MS}ms`, {org: o.org.id})));
    const details = await Promise.all(waits);
    expect(details.map((d) => d.delivery.id)).toEqual(orgs.map((o) => o.deliveryId));
    for (const d of details) expect(d.attempts.map((x) => x.status_code)).toEqual([503, 503]);
    const clocks = await Promise.all(orgs.map((o) => emu.control.orgClock(o.org.id)));
    for (const c of clocks) expect(Date.parse(c.now)).toBe(START.getTime() + FIRST_WAIT_MS);
  });

  async function refusedWith(made: Promise<unknown>): Promise<{status: number; code: string}> {
    const err = await made.then(
      () => expect.unreachable('the wait answered'),
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(EmulatorControlError);
    const {status, code} = err as EmulatorControlError;
    return {status, code: code as string};
  }

  it('answers with every attempt, oldest first, each as the database holds it, once the delivery is as wanted', async () => {
    const org = await emu.control.createOrg({name: 'waits read'});
    await emu.control.createWebhook({url: receiver.url, events: ['sandbox.error'], org_id: org.id});
    const move = await emu.control.trigger({type: 'sandbox.error', org_id: org.id});
    const first = await emu.control.waitForDelivery({event_id: move.event?.id as string, attempts: 1});
    const id = first.delivery.id;
    // Held until the third attempt is recorded, by id.
    const third = emu.control.waitForDelivery({delivery_id: id, attempts: 3, timeout_ms: LONG_MS});
    for (const wait of RETRY_WAITS_MS.slice(0, 2))
      await emu.control.advanceClock(`${wait}ms`, {org: org.id, settle: true});
    const detail = await third;
    expect(detail.delivery).toMatchObject({id, status: 'pending', attempts: 3, last_status_code: 503});
    expect(detail.event.id).toBe(move.event?.id);
    const {rows} = await emu.db.query<{
      attempt: number;
      started_at: Date | string;
      signature_t: string | number;
      trigger: string;
      status_code: number;
      error: string | null;
      duration_ms: number;
      response_body: string;
    }>('SELECT * FROM delivery_attempts WHERE delivery_id = $1 ORDER BY attempt', [id]);
    expect(rows).toHaveLength(3);
    expect(detail.attempts).toEqual(
      rows.map((r) => ({
        attempt: r.attempt,
        started_at: new Date(r.started_at).toISOString(),
        signature_t: Number(r.signature_t),
        trigger: r.trigger,
        status_code: r.status_code,
        error: r.error,
        duration_ms: r.duration_ms,
        response_body: r.response_body,
      })),
    );
    expect(detail.attempts.map((a) => [a.attempt, a.status_code, a.response_body])).toEqual([
      [1, 503, ''],
      [2, 503, ''],
      [3, 503, ''],
    ]);
    // The second attempt was made at its scheduled time, which a wait for a status it does not have yet shows.
    expect(Date.parse(detail.attempts[1]?.started_at as string)).toBe(
      Date.parse(detail.attempts[0]?.started_at as string) + (RETRY_WAITS_MS[0] as number),
    );
    expect(
      await refusedWith(emu.control.waitForDelivery({delivery_id: id, status: 'failed', timeout_ms: 0})),
    ).toEqual({status: 408, code: 'timeout'});
  });

  it('refuses a delivery past the retention window as not found, and runs out of time for an id nothing has', async () => {
    const org = await emu.control.createOrg({name: 'waits past retention'});
    const endpoint = await emu.control.createWebhook({
      url: receiver.url,
      events: ['sandbox.ready'],
      org_id: org.id,
    });
    // A delivery older than the window that the purge has not taken yet (it runs when the clock moves): written as
    // rows, since the emulator makes nothing in the past.
    const old = new Date(START.getTime() - RETENTION_MS - 86_400_000);
    const eventId = `evt_${'R'.repeat(24)}`;
    const deliveryId = `dlv_${'R'.repeat(24)}`;
    await emu.db.query(
      `INSERT INTO events (id, org_id, type, created_at, body) VALUES ($1, $2, 'sandbox.ready', $3, '{}')`,
      [eventId, org.id, old],
    );
    await emu.db.query(
      `INSERT INTO deliveries (id, org_id, event_id, endpoint_id, event_type, status, attempts, created_at)
       VALUES ($1, $2, $3, $4, 'sandbox.ready', 'failed', 9, $5)`,
      [deliveryId, org.id, eventId, endpoint.id, old],
    );
    expect(await refusedWith(emu.control.delivery(deliveryId))).toEqual({status: 404, code: 'not_found'});
    expect(
      await refusedWith(emu.control.waitForDelivery({delivery_id: deliveryId, timeout_ms: LONG_MS})),
    ).toEqual({status: 404, code: 'not_found'});
    const unknown = `dlv_${'A'.repeat(24)}`;
    expect(await refusedWith(emu.control.waitForDelivery({delivery_id: unknown, timeout_ms: 50}))).toEqual({
      status: 408,
      code: 'timeout',
    });
  });
});
