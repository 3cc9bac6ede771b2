// Bulk recovery through the control route: every failed delivery that matches is resent by the one resend
// operation, on a real emulator with a real receiver that keeps failing.
// Backends: the bulk match is one SQL filter over statuses, orgs and times that each database evaluates.
import {afterEach, beforeEach, describe, expect, it} from 'vitest';
import {EmulatorControlError} from '../../../src/client/emulator-control.js';
import {type RunningEmulator, startEmulator} from '../../../src/emulator/index.js';
import {EMULATOR_BACKENDS, type EmulatorBackend} from '../../helpers/emulator-backends.js';
import {describeEachBackend} from '../../helpers/requirements.js';
import {type Receiver, startReceiver} from '../delivery/helpers.js';

let emu: RunningEmulator | undefined;
let receiver: Receiver | undefined;
let dispose: (() => Promise<void>) | undefined;
afterEach(async () => {
  await emu?.stop();
  emu = undefined;
  await receiver?.close();
  receiver = undefined;
  await dispose?.();
  dispose = undefined;
});

let backend = EMULATOR_BACKENDS[0] as EmulatorBackend;
const START = new Date('2031-05-01T12:00:00.000Z');

async function start() {
  receiver = await startReceiver((_q, res) => {
    res.writeHead(503);
    res.end();
  });
  const opened = await backend.options();
  dispose = opened.dispose;
  const e = await startEmulator({
    ...opened.options,
    port: 0,
    clock: 'manual',
    clockStart: START,
    allowLocalEndpoints: true,
  });
  emu = e;
  return {e, r: receiver};
}

/** Two endpoints on a receiver that answers 503: two events fail to the first, one to the second, one still pending. */
async function setUp() {
  const {e, r} = await start();
  const a = await e.control.createWebhook({url: `${r.url}/a`, events: ['sandbox.ready', 'sandbox.error']});
  const b = await e.control.createWebhook({url: `${r.url}/b`, events: ['sandbox.stopped']});
  await e.control.trigger({type: 'sandbox.ready'});
  await e.control.advanceClock('1s');
  await e.control.trigger({type: 'sandbox.error'});
  await e.control.trigger({type: 'sandbox.stopped'});
  await r.received(3);
  // Every attempt that falls due in a move is made: the first 13 h bring all the retries but the last, the next
  // the last; nine in all, then each fails. The clock goes on to 104 h after the first.
  for (let moved = 1; moved < 9; moved++) await e.control.advanceClock('13h', {settle: true});
  await r.received(27);
  // Each delivery's ninth answer recorded: every one of them has failed.
  for (const id of new Set(r.requests.map((q) => String(q.headers['svc-delivery-id']))))
    await e.control.waitForDelivery({delivery_id: id, status: 'failed'});
  expect(
    (await e.control.endpointHealth()).data.every((h) => h.failed === (h.endpoint_id === a.id ? 2 : 1)),
  ).toBe(true);
  // One more, still pending: never part of a bulk resend of failed deliveries.
  await e.control.trigger({type: 'sandbox.ready'});
  await r.received(28);
  return {e, r, a, b};
}

describeEachBackend(EMULATOR_BACKENDS, 'on $name', (chosen) => {
  beforeEach(() => {
    backend = chosen;
  });

  describe('POST /_emulator/failed-deliveries/resend', {timeout: 60_000}, () => {
    it('resends every failed delivery, oldest first, one endpoint with webhook_id, none outside since', async () => {
      const {e, r, a} = await setUp();
      const before = r.requests.length;
      const one = await e.control.resendFailed({webhook_id: a.id});
      expect(one.resent).toBe(2);
      expect(r.requests.slice(before).map((q) => q.url)).toEqual(['/a', '/a']);
      const details = await Promise.all(one.deliveries.map((id) => e.control.delivery(id)));
      expect(details.map((d) => d.event.type)).toEqual(['sandbox.ready', 'sandbox.error']);
      for (const d of details) {
        expect(d.delivery.status).toBe('failed');
        expect(d.attempts.at(-1)).toMatchObject({attempt: 10, trigger: 'manual', status_code: 503});
      }

      const all = await e.control.resendFailed();
      expect(all.resent).toBe(3);
      expect(r.requests.length).toBe(before + 5);

      // Created 104 hours ago on the emulator's clock.
      expect(await e.control.resendFailed({since: '4d'})).toEqual({
        resent: 0,
        deliveries: [],
        outcomes: [],
        next: null,
      });
      expect((await e.control.resendFailed({since: '5d'})).resent).toBe(3);
    });

    it('refuses a bad duration and an endpoint that is not the org’s, and resends nothing', async () => {
      const {e, r} = await start();
      await e.control.createWebhook({url: `${r.url}/a`, events: ['sandbox.ready']});
      await e.control.trigger({type: 'sandbox.ready'});
      await r.received(1);
      const before = r.requests.length;
      const bad = await e.control.resendFailed({since: 'yesterday'}).catch((err: unknown) => err);
      expect(bad).toBeInstanceOf(EmulatorControlError);
      expect(bad).toMatchObject({status: 400, code: 'invalid_request'});
      expect((bad as EmulatorControlError).problems).toEqual([
        expect.objectContaining({field: 'since', message: expect.stringMatching(/duration/)}),
      ]);
      const unknown = await e.control
        .resendFailed({webhook_id: `we_${'a'.repeat(24)}`})
        .catch((err: unknown) => err);
      expect(unknown).toMatchObject({status: 404, code: 'not_found'});
      expect(r.requests.length).toBe(before);
    });
  });
});
