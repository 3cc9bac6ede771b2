// Backends: a resend numbers its attempt and reschedules the delivery in SQL, under the row lock each database takes its own way.
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest';
import {EmulatorControlError} from '../../../src/client/emulator-control.js';
import {type RunningEmulator, startEmulator} from '../../../src/emulator/index.js';
import {RESPONSE_BODY_LIMIT_BYTES} from '../../../src/definitions.js';
import {verifySignature} from '../../../src/webhooks/index.js';
import {orgOfItsOwn, type Receiver, type Responder, startReceiver} from '../delivery/helpers.js';
import {EMULATOR_BACKENDS} from '../../helpers/emulator-backends.js';
import {describeEachBackend} from '../../helpers/requirements.js';

const START = new Date('2031-05-01T12:00:00.000Z');

describeEachBackend(EMULATOR_BACKENDS, 'on $name', (backend) => {
  // One emulator per backend; each test works in an org of its own, on the org's own clock.
  let emu: RunningEmulator;
  let dispose: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const opened = await backend.options();
    dispose = opened.dispose;
    emu = await startEmulator({
      ...opened.options,
      port: 0,
      clock: 'manual',
      clockStart: START,
      // These cases read each attempt's signature time against the org's clock, which their receiver shares.
      signatureClock: 'emulator',
      allowLocalEndpoints: true,
    });
  });
  afterAll(async () => {
    await emu?.stop();
    await dispose?.();
  });

  let receiver: Receiver | undefined;
  let deleteOrg: (() => Promise<unknown>) | undefined;
  afterEach(async () => {
    await deleteOrg?.();
    deleteOrg = undefined;
    await receiver?.close();
    receiver = undefined;
  });

  /** An org of its own (deleted after the test), its clock still the emulator's, and a receiver answering so. */
  async function start(name: string, respond: Responder) {
    receiver = await startReceiver(respond);
    const own = await orgOfItsOwn(emu.control, name);
    deleteOrg = () => own.control.deleteOrg(own.id);
    return {...own, r: receiver};
  }

  /**
   * An org of its own whose one endpoint answers with `answer(i)` for request i, and the id of its one delivery,
   * attempted once at START.
   */
  async function setUp(name: string, answer: (i: number) => {status: number; body?: string}) {
    const {org, control, r} = await start(name, (_q, res, i) => {
      const a = answer(i);
      res.writeHead(a.status, {'content-type': 'text/plain'});
      res.end(a.body ?? '');
    });
    const hook = await org.createWebhook({url: `${r.url}/in`, events: ['sandbox.error']});
    await org.trigger({type: 'sandbox.error', last_error: 'disk full'});
    await r.received(1);
    const key = await org.createKey({name: 'reader'});
    const res = await fetch(`${emu.apiUrl}/v1/webhooks/${hook.id}/deliveries`, {
      headers: {authorization: `Bearer ${key.secret}`},
    });
    const list = (await res.json()) as {data: {id: string}[]};
    const id = list.data[0]?.id as string;
    await org.waitForDelivery({delivery_id: id, attempts: 1});
    return {org, control, receiver: r, hook, deliveryId: id};
  }

  describe('GET /_emulator/deliveries/:id', () => {
    it('shows the delivery, its event and each attempt with its answer, signature time and duration', async () => {
      const {
        control,
        receiver: r,
        deliveryId,
        hook,
      } = await setUp('shows the delivery', () => ({status: 500, body: 'boom: database down'}));
      const detail = await control.delivery(deliveryId);
      expect(detail.endpoint_id).toBe(hook.id);
      expect(detail.delivery).toMatchObject({
        id: deliveryId,
        status: 'pending',
        attempts: 1,
        last_status_code: 500,
      });
      expect(detail.event).toMatchObject({type: 'sandbox.error', data: {sandbox: {last_error: 'disk full'}}});
      expect(JSON.stringify(detail.event)).toBe(r.requests[0]?.body.toString());
      const [first] = detail.attempts;
      expect(first).toMatchObject({
        attempt: 1,
        trigger: 'scheduled',
        status_code: 500,
        error: null,
        response_body: 'boom: database down',
        started_at: START.toISOString(),
        signature_t: START.getTime() / 1000,
      });
      expect(r.requests[0]?.headers['svc-signature']).toMatch(new RegExp(`^t=${START.getTime() / 1000},v1=`));
      expect(first?.duration_ms).toBeGreaterThanOrEqual(0);
    });

    it('keeps only the first 4 kB of an answer', async () => {
      const {control, deliveryId} = await setUp('keeps 4 kB', () => ({
        status: 502,
        body: 'x'.repeat(10_000),
      }));
      const detail = await control.delivery(deliveryId);
      expect(detail.attempts[0]?.response_body).toHaveLength(RESPONSE_BODY_LIMIT_BYTES);
    });

    it('answers 404 for unknown or malformed ids and 401 without the admin token', async () => {
      const {control} = await setUp('unknown ids', () => ({status: 200}));
      for (const id of ['dlv_000000000000000000000000', 'nope', 'dlv_x%27']) {
        const err = await control.delivery(id).catch((x: unknown) => x);
        expect(err).toBeInstanceOf(EmulatorControlError);
        expect((err as EmulatorControlError).status).toBe(404);
        expect((err as EmulatorControlError).code).toBe('not_found');
      }
      const res = await fetch(`${emu.apiUrl}/_emulator/deliveries/dlv_000000000000000000000000`);
      expect(res.status).toBe(401);
    });
  });

  describe('POST /_emulator/deliveries/:id/resend', () => {
    it('makes a manual, freshly signed attempt with the same body; failing, it leaves the schedule alone', async () => {
      const {
        org,
        control,
        receiver: r,
        deliveryId,
        hook,
      } = await setUp('a manual attempt', (i) =>
        i === 3 ? {status: 200, body: 'fixed'} : {status: 500, body: 'broken'},
      );
      const before = await control.delivery(deliveryId);
      expect(before.delivery.next_attempt_at).toBe(new Date(START.getTime() + 30_000).toISOString());

      await org.advanceClock('10s');
      const after = await control.resendDelivery(deliveryId);
      expect(r.requests).toHaveLength(2);
      const sent = r.requests[1];
      expect(sent?.body.toString()).toBe(r.requests[0]?.body.toString());
      expect(sent?.headers['svc-delivery-attempt']).toBe('2');
      expect(sent?.headers['svc-delivery-id']).toBe(deliveryId);
      const t = START.getTime() / 1000 + 10;
      expect(sent?.headers['svc-signature']).toMatch(new RegExp(`^t=${t},v1=`));
      expect(() =>
        verifySignature({
          secret: hook.secret,
          payload: sent?.body as Buffer,
          header: String(sent?.headers['svc-signature']),
          now: new Date(t * 1000),
        }),
      ).not.toThrow();

      // Counted as an attempt made; failing, it leaves status and next attempt untouched, and says so.
      expect(after.resend).toEqual({
        delivery_id: deliveryId,
        attempt: 2,
        status_code: 500,
        error: null,
        status: 'pending',
      });
      expect(after.delivery).toMatchObject({
        status: 'pending',
        attempts: 2,
        last_status_code: 500,
        next_attempt_at: before.delivery.next_attempt_at,
        last_attempt_at: new Date(START.getTime() + 10_000).toISOString(),
      });
      expect(after.attempts.map((a) => [a.attempt, a.trigger, a.status_code, a.signature_t])).toEqual([
        [1, 'scheduled', 500, START.getTime() / 1000],
        [2, 'manual', 500, t],
      ]);

      // The schedule goes on: the next scheduled attempt comes 30 s after the first and is number 3, and the wait
      // after it is the one after a second scheduled failure (2 min), not a third.
      await org.advanceClock('20s');
      await r.received(3);
      expect(r.requests[2]?.headers['svc-delivery-attempt']).toBe('3');
      await org.waitForDelivery({delivery_id: deliveryId, attempts: 3});
      const third = await control.delivery(deliveryId);
      expect(third.delivery).toMatchObject({status: 'pending', attempts: 3, last_status_code: 500});
      expect(third.delivery.next_attempt_at).toBe(new Date(START.getTime() + 30_000 + 120_000).toISOString());
    });

    it('keeps the nine scheduled attempts whatever the resends, and resends a failed delivery too', async () => {
      const {
        org,
        control,
        receiver: r,
        deliveryId,
      } = await setUp('nine scheduled attempts', () => ({status: 503}));
      await control.resendDelivery(deliveryId);
      await control.resendDelivery(deliveryId);
      // One move of the clock past the last wait makes every scheduled attempt that falls due in it.
      await org.advanceClock('1d', {settle: true});
      const failed = await control.delivery(deliveryId);
      const scheduled = failed.attempts.filter((a) => a.trigger === 'scheduled');
      expect(scheduled).toHaveLength(9);
      expect(failed.delivery.attempts).toBe(11);
      expect(failed.attempts.map((a) => a.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);

      const again = await control.resendDelivery(deliveryId);
      expect(again.delivery).toMatchObject({status: 'failed', attempts: 12, next_attempt_at: null});
      expect(again.attempts.at(-1)).toMatchObject({attempt: 12, trigger: 'manual', status_code: 503});
      expect(r.requests).toHaveLength(12);
    });

    it('waits for a scheduled attempt in flight to the same endpoint, then takes the next number', async () => {
      let release: () => void = () => undefined;
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      let firstAnswered = false;
      let resendBesideFirst = false;
      const {org, control, r} = await start('in flight', (_q, res, i) => {
        if (i > 0) {
          if (!firstAnswered) resendBesideFirst = true;
          res.writeHead(200);
          res.end('ok');
          return;
        }
        void gate.then(() => {
          firstAnswered = true;
          res.writeHead(500);
          res.end('slow and failing');
        });
      });
      const hook = await org.createWebhook({url: `${r.url}/in`, events: ['sandbox.error']});
      await org.trigger({type: 'sandbox.error'});
      await r.received(1);
      const key = await org.createKey({name: 'reader'});
      const res = await fetch(`${emu.apiUrl}/v1/webhooks/${hook.id}/deliveries`, {
        headers: {authorization: `Bearer ${key.secret}`},
      });
      const id = ((await res.json()) as {data: {id: string}[]}).data[0]?.id as string;

      // The scheduled attempt is still waiting for its answer: the resend waits for it.
      const resent = control.resendDelivery(id);
      // Reads of the same delivery, each after the one before, take the steps the resend takes before it would
      // send (the delivery's detail, from the same database): a resend that did not wait would have sent by now.
      for (let n = 0; n < 5; n++) await control.delivery(id);
      expect(r.requests).toHaveLength(1);
      release();
      const after = await resent;
      expect(resendBesideFirst).toBe(false);
      expect(after.attempts.map((a) => [a.attempt, a.trigger, a.status_code])).toEqual([
        [1, 'scheduled', 500],
        [2, 'manual', 200],
      ]);
      expect(r.requests[1]?.headers['svc-delivery-attempt']).toBe('2');
      expect(after.delivery).toMatchObject({status: 'succeeded', attempts: 2, next_attempt_at: null});
    });

    it('records a network failure as the attempt error', async () => {
      const {control, receiver: r, deliveryId} = await setUp('a network failure', () => ({status: 500}));
      await r.close();
      receiver = undefined;
      const after = await control.resendDelivery(deliveryId);
      expect(after.attempts.at(-1)).toMatchObject({trigger: 'manual', status_code: null});
      expect(after.attempts.at(-1)?.error).toMatch(/ECONNREFUSED|refused/i);
      expect(after.delivery.last_status_code).toBeNull();
    });

    it('answers 404 for an unknown delivery', async () => {
      const {control} = await setUp('an unknown delivery', () => ({status: 200}));
      const err = await control.resendDelivery('dlv_000000000000000000000000').catch((x: unknown) => x);
      expect((err as EmulatorControlError).status).toBe(404);
    });
  });
});
