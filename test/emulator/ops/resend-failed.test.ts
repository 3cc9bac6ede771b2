// Bulk recovery through the control route: every failed delivery that matches is resent by the one resend
// operation, on a real emulator with a real receiver that keeps failing.
// Backends: the bulk match is one SQL filter over statuses, orgs and times that each database evaluates.
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest';
import {EmulatorControlError} from '../../../src/client/emulator-control.js';
import {type RunningEmulator, startEmulator} from '../../../src/emulator/index.js';
import {EMULATOR_BACKENDS} from '../../helpers/emulator-backends.js';
import {describeEachBackend} from '../../helpers/requirements.js';
import {orgOfItsOwn, type Receiver, startReceiver} from '../delivery/helpers.js';

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

  /** An org of its own (deleted after the test) and a receiver that answers 503 to everything. */
  async function start(name: string) {
    receiver = await startReceiver((_q, res) => {
      res.writeHead(503);
      res.end();
    });
    const own = await orgOfItsOwn(emu.control, name);
    deleteOrg = () => own.control.deleteOrg(own.id);
    return {...own, r: receiver};
  }

  /**
   * Two endpoints of the org on a receiver that answers 503: two events fail to the first, one to the second, one
   * still pending.
   */
  async function setUp(name: string) {
    const {id, org, control, r} = await start(name);
    const a = await org.createWebhook({url: `${r.url}/a`, events: ['sandbox.ready', 'sandbox.error']});
    const b = await org.createWebhook({url: `${r.url}/b`, events: ['sandbox.stopped']});
    await org.trigger({type: 'sandbox.ready'});
    await org.advanceClock('1s');
    await org.trigger({type: 'sandbox.error'});
    await org.trigger({type: 'sandbox.stopped'});
    await r.received(3);
    // Every attempt that falls due in a move of the org's clock is made: the first 13 h bring all the retries but
    // the last, the next the last; nine in all, then each fails. The clock goes on to 104 h after the first.
    for (let moved = 1; moved < 9; moved++) await org.advanceClock('13h', {settle: true});
    await r.received(27);
    // Each delivery's ninth answer recorded: every one of them has failed.
    for (const delivery of new Set(r.requests.map((q) => String(q.headers['svc-delivery-id']))))
      await org.waitForDelivery({delivery_id: delivery, status: 'failed'});
    expect(
      (await control.endpointHealth(id)).data.every((h) => h.failed === (h.endpoint_id === a.id ? 2 : 1)),
    ).toBe(true);
    // One more, still pending: never part of a bulk resend of failed deliveries.
    await org.trigger({type: 'sandbox.ready'});
    await r.received(28);
    return {id, org, control, r, a, b};
  }

  describe('POST /_emulator/failed-deliveries/resend', {timeout: 60_000}, () => {
    it('resends every failed delivery, oldest first, one endpoint with webhook_id, none outside since', async () => {
      const {id, control, r, a} = await setUp('resends every failed delivery');
      const before = r.requests.length;
      const one = await control.resendFailed({org_id: id, webhook_id: a.id});
      expect(one.resent).toBe(2);
      expect(r.requests.slice(before).map((q) => q.url)).toEqual(['/a', '/a']);
      const details = await Promise.all(one.deliveries.map((d) => control.delivery(d)));
      expect(details.map((d) => d.event.type)).toEqual(['sandbox.ready', 'sandbox.error']);
      for (const d of details) {
        expect(d.delivery.status).toBe('failed');
        expect(d.attempts.at(-1)).toMatchObject({attempt: 10, trigger: 'manual', status_code: 503});
      }

      const all = await control.resendFailed({org_id: id});
      expect(all.resent).toBe(3);
      expect(r.requests.length).toBe(before + 5);

      // Created 104 hours ago on the org's clock.
      expect(await control.resendFailed({org_id: id, since: '4d'})).toEqual({
        resent: 0,
        deliveries: [],
        outcomes: [],
        next: null,
      });
      expect((await control.resendFailed({org_id: id, since: '5d'})).resent).toBe(3);
    });

    it('with no org named, resends the failed deliveries of the default org and of no other org', async () => {
      // The one test on the emulator's default org: a bulk resend that names no org acts on that org.
      const {org, r} = await start('not the default org');
      const defaultOrg = (await emu.control.health()).org_id;
      await org.createWebhook({url: `${r.url}/other`, events: ['sandbox.error']});
      await emu.control.createWebhook({url: `${r.url}/default`, events: ['sandbox.error']});
      const failing = [
        await org.trigger({type: 'sandbox.error'}),
        await emu.control.trigger({type: 'sandbox.error'}),
      ].map((move) => move.event?.id as string);
      // A day of each org's own clock walks its whole schedule: nine attempts, then failed.
      await org.advanceClock('1d', {settle: true});
      await emu.control.advanceClock('1d', {org: defaultOrg, settle: true});
      const [other, ofDefault] = await Promise.all(
        failing.map((event_id) => emu.control.waitForDelivery({event_id, status: 'failed'})),
      );
      const before = r.requests.length;

      const resent = await emu.control.resendFailed();
      expect(resent.deliveries).toEqual([ofDefault?.delivery.id]);
      expect(r.requests.slice(before).map((q) => q.url)).toEqual(['/default']);
      expect((await emu.control.delivery(other?.delivery.id as string)).delivery.attempts).toBe(9);
    });

    it('refuses a bad duration and an endpoint that is not the org’s, and resends nothing', async () => {
      const {id, org, control, r} = await start('refuses bad input');
      await org.createWebhook({url: `${r.url}/a`, events: ['sandbox.ready']});
      await org.trigger({type: 'sandbox.ready'});
      await r.received(1);
      const before = r.requests.length;
      const bad = await control.resendFailed({org_id: id, since: 'yesterday'}).catch((err: unknown) => err);
      expect(bad).toBeInstanceOf(EmulatorControlError);
      expect(bad).toMatchObject({status: 400, code: 'invalid_request'});
      expect((bad as EmulatorControlError).problems).toEqual([
        expect.objectContaining({field: 'since', message: expect.stringMatching(/duration/)}),
      ]);
      const unknown = await control
        .resendFailed({org_id: id, webhook_id: `we_${'a'.repeat(24)}`})
        .catch((err: unknown) => err);
      expect(unknown).toMatchObject({status: 404, code: 'not_found'});
      expect(r.requests.length).toBe(before);
    });
  });
});
