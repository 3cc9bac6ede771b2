// What a resend reports and does to its delivery: the attempt's answer and the delivery's state after it, an
// attempt answered 2xx making the delivery succeeded as any attempt does. And a bulk resend as a bounded job: one
// request makes at most a page of resends and says where to go on, a caller asks for at most the limit, and a
// caller that goes away stops the emulator's work at once, however many failed deliveries match. Through the
// control routes, on a real emulator with real receivers.
// Backends: the page is one SQL range over (created_at, id) that each database compares and orders itself.
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import type {ServerResponse} from 'node:http';
import {EmulatorControlError} from '../../../src/client/emulator-control.js';
import {RESEND_FAILED_LIMIT, RESEND_FAILED_PAGE} from '../../../src/definitions.js';
import {type RunningEmulator, startEmulator} from '../../../src/emulator/index.js';
import {EMULATOR_BACKENDS} from '../../helpers/emulator-backends.js';
import {seedFailedDeliveries} from '../../helpers/failed-deliveries.js';
import {describeEachBackend} from '../../helpers/requirements.js';
import {type Receiver, startReceiver} from '../delivery/helpers.js';

const RESEND_PATH = '/_emulator/failed-deliveries/resend';

describeEachBackend(EMULATOR_BACKENDS, 'on $name', (backend) => {
  // One emulator per backend; each test works in an org of its own.
  let emu: RunningEmulator;
  let receiver: Receiver;
  let dispose: (() => Promise<void>) | undefined;
  /** Answers of /held, kept until the test lets them go. */
  const held: ServerResponse[] = [];
  let holding = true;
  /**
   * /flaky answers 500 until it is fixed, then 200; /mixed 200 for the deliveries in `recovers` and 503 for the
   * rest; /down always 503; anything else 200.
   */
  let flakyFixed = false;
  const recovers = new Set<string>();
  beforeAll(async () => {
    receiver = await startReceiver((q, res) => {
      if (q.url === '/held' && holding) {
        held.push(res);
        return;
      }
      const failing =
        q.url === '/down' ||
        (q.url === '/flaky' && !flakyFixed) ||
        (q.url === '/mixed' && !recovers.has(String(q.headers['svc-delivery-id'])));
      res.writeHead(failing ? (q.url === '/flaky' ? 500 : 503) : 200);
      res.end();
    });
    const opened = await backend.options();
    dispose = opened.dispose;
    emu = await startEmulator({
      ...opened.options,
      port: 0,
      clock: 'manual',
      clockStart: new Date('2031-05-01T12:00:00.000Z'),
      allowLocalEndpoints: true,
    });
  });
  afterAll(async () => {
    await emu?.stop();
    await receiver?.close();
    await dispose?.();
  });

  /** An org of its own with one endpoint at `path` of the receiver, and `count` failed deliveries to it. */
  async function failedOrg(path: string, count: number) {
    const seeded = await seedFailedDeliveries(emu.control, {url: `${receiver.url}${path}`, count});
    return {org: {id: seeded.orgId}, hook: {id: seeded.endpointId}, ids: seeded.ids};
  }

  describe('POST /_emulator/deliveries/:id/resend', () => {
    it('answered 2xx, makes a pending delivery succeeded and ends its schedule; says what came back', async () => {
      const hook = await emu.control.createWebhook({url: `${receiver.url}/flaky`, events: ['sandbox.error']});
      const move = await emu.control.trigger({type: 'sandbox.error'});
      const first = await emu.control.waitForDelivery({event_id: move.event?.id as string, attempts: 1});
      expect(first.delivery).toMatchObject({status: 'pending', last_status_code: 500});
      const toFlaky = () => receiver.requests.filter((q) => q.url === '/flaky').length;

      flakyFixed = true;
      const after = await emu.control.resendDelivery(first.delivery.id);
      expect(after.resend).toEqual({
        delivery_id: first.delivery.id,
        attempt: 2,
        status_code: 200,
        error: null,
        status: 'succeeded',
      });
      expect(after.delivery).toMatchObject({status: 'succeeded', attempts: 2, next_attempt_at: null});
      expect(after.endpoint_id).toBe(hook.id);
      // A whole day of the schedule's waits, every attempt due in it made: none is left for this delivery.
      await emu.control.advanceClock('1d', {settle: true});
      expect(toFlaky()).toBe(2);
      expect((await emu.control.delivery(first.delivery.id)).delivery).toMatchObject({
        status: 'succeeded',
        attempts: 2,
      });
    });

    it('a failed delivery: succeeded once its receiver is fixed, still failed while it is not', async () => {
      const down = await failedOrg('/down', 1);
      const fixed = await failedOrg('/fixed', 1);
      const still = await emu.control.resendDelivery(down.ids[0] as string);
      expect(still.resend).toMatchObject({attempt: 10, status_code: 503, status: 'failed'});
      expect(still.delivery).toMatchObject({status: 'failed', attempts: 10, last_status_code: 503});
      const recovered = await emu.control.resendDelivery(fixed.ids[0] as string);
      expect(recovered.resend).toMatchObject({attempt: 10, status_code: 200, status: 'succeeded'});
      expect(recovered.delivery).toMatchObject({status: 'succeeded', attempts: 10, last_status_code: 200});
    });
  });

  describe('POST /_emulator/failed-deliveries/resend', {timeout: 120_000}, () => {
    it('leaves what an earlier run recovered: a second run resends only those still failed', async () => {
      const {org, ids} = await failedOrg('/mixed', 3);
      // The receiver is fixed for the first and the last; the middle one's request still fails.
      for (const id of [ids[0], ids[2]]) recovers.add(id as string);
      const once = await emu.control.resendFailed({org_id: org.id});
      expect(once.outcomes.map((o) => [o.delivery_id, o.attempt, o.status_code, o.status])).toEqual([
        [ids[0], 10, 200, 'succeeded'],
        [ids[1], 10, 503, 'failed'],
        [ids[2], 10, 200, 'succeeded'],
      ]);
      const twice = await emu.control.resendFailed({org_id: org.id});
      expect(twice).toEqual({
        resent: 1,
        deliveries: [ids[1]],
        outcomes: [{delivery_id: ids[1], attempt: 11, status_code: 503, error: null, status: 'failed'}],
        next: null,
      });
      const sentTo = (id: string | undefined) =>
        receiver.requests.filter((q) => q.headers['svc-delivery-id'] === id).length;
      expect(ids.map(sentTo)).toEqual([1, 2, 1]);
    });

    it('resends a page at a time, oldest first, each with its outcome, and goes on from `next` to the end', async () => {
      const extra = 20;
      const {org, ids} = await failedOrg('/down', RESEND_FAILED_PAGE.deliveries + extra);
      const before = receiver.requests.length;

      // Page by page, each at most RESEND_FAILED_PAGE's deliveries (fewer when its time ran out), oldest first.
      const pages = [await emu.control.resendFailed({org_id: org.id, limit: RESEND_FAILED_LIMIT.max})];
      for (let next = pages[0]?.next; next; next = pages.at(-1)?.next)
        pages.push(await emu.control.resendFailed({org_id: org.id, after: next}));
      expect(pages.length).toBeGreaterThanOrEqual(2);
      for (const page of pages) {
        expect(page.resent).toBeGreaterThan(0);
        expect(page.resent).toBeLessThanOrEqual(RESEND_FAILED_PAGE.deliveries);
        expect(page.deliveries).toEqual(page.outcomes.map((o) => o.delivery_id));
      }
      expect(pages.flatMap((p) => p.deliveries)).toEqual(ids);
      expect(pages[0]?.outcomes[0]).toEqual({
        delivery_id: ids[0],
        attempt: 10,
        status_code: 503,
        error: null,
        status: 'failed',
      });
      expect(receiver.requests.length - before).toBe(ids.length);

      // A limit below the page: that many, and the rest are still there to go on with.
      const three = await emu.control.resendFailed({org_id: org.id, limit: 3});
      expect(three.deliveries).toEqual(ids.slice(0, 3));
      expect(three.outcomes.map((o) => o.attempt)).toEqual([11, 11, 11]);
      expect(three.next).not.toBeNull();
    });

    it('refuses a limit past the maximum, below one or not a whole number, and a made-up place to go on from', async () => {
      const {org} = await failedOrg('/down', 1);
      const before = receiver.requests.length;
      for (const [body, field] of [
        [{limit: RESEND_FAILED_LIMIT.max + 1}, 'limit'],
        [{limit: 0}, 'limit'],
        [{limit: 2.5}, 'limit'],
        [{limit: '10'}, 'limit'],
        [{after: 'dlv_nowhere'}, 'after'],
      ] as const) {
        const err = await emu.control
          .resendFailed({org_id: org.id, ...(body as object)})
          .catch((e: unknown) => e);
        expect(err).toBeInstanceOf(EmulatorControlError);
        expect(err).toMatchObject({status: 400, code: 'invalid_request'});
        expect((err as EmulatorControlError).problems).toEqual([
          expect.objectContaining({field, message: expect.any(String)}),
        ]);
      }
      const limitProblem = await emu.control
        .resendFailed({org_id: org.id, limit: RESEND_FAILED_LIMIT.max + 1})
        .catch((e: EmulatorControlError) => e.problems[0]?.message);
      expect(limitProblem).toBe(`must be a whole number from 1 to ${RESEND_FAILED_LIMIT.max}`);
      expect(receiver.requests.length).toBe(before);
    });

    it('stops starting resends once its caller has gone, with thousands left to resend', async () => {
      const {org, hook, ids} = await failedOrg('/held', 3000);
      const before = receiver.requests.length;
      const seq = (await emu.control.logs()).last;

      const caller = new AbortController();
      const call = emu.control
        .resendFailed({org_id: org.id, limit: RESEND_FAILED_LIMIT.max}, {signal: caller.signal})
        .catch((err: unknown) => err);
      // The first resend is out and its answer held; then the caller goes away.
      await receiver.received(before + 1);
      caller.abort();
      expect(await call).toMatchObject({name: 'AbortError'});

      // The emulator's request is over (the request log writes an entry when its answer is made) while the
      // receiver still holds the one resend under way.
      await requestLogged(seq);
      expect(held).toHaveLength(1);

      // Let it go: the resend under way is recorded as made, and none follows it.
      holding = false;
      for (const res of held.splice(0)) {
        res.writeHead(200);
        res.end();
      }
      const first = await emu.control.waitForDelivery({delivery_id: ids[0] as string, status: 'succeeded'});
      expect(first.delivery.attempts).toBe(10);
      // A second call, not abandoned, goes through the same endpoint after anything still running for it.
      const next = await emu.control.resendFailed({org_id: org.id, webhook_id: hook.id, limit: 1});
      expect(next.deliveries).toEqual([ids[1]]);
      expect(receiver.requests.length - before).toBe(2);
      expect(receiver.requests.slice(before).map((q) => q.headers['svc-delivery-id'])).toEqual(
        ids.slice(0, 2),
      );
    });
  });

  /** Until the request log holds the answer of a bulk resend made after `seq` (pushed: the log's wait). */
  async function requestLogged(seq: number): Promise<void> {
    let after = seq;
    for (let tries = 0; tries < 20; tries++) {
      const page = await emu.control.logs({after, wait: 5_000});
      if (page.data.some((e) => e.method === 'POST' && e.path === RESEND_PATH)) return;
      after = page.last;
    }
    throw new Error('the bulk resend was still running: its request never ended');
  }
});
