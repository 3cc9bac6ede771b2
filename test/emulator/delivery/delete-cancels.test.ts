// Delete means gone: deleting an endpoint, or the org that has it, cancels its claimed and queued attempts, and no
// signed request for it starts once the DELETE has answered (the one in flight may finish); deleting an org ends
// the browser sessions looking at it. The receiver holds each request until the test lets it go, so a lane is
// caught mid-batch without any sleep.
// Backends: a deletion locks the endpoint's rows and, on PostgreSQL, tells the other processes that hold its deliveries.
import {afterEach, expect, it} from 'vitest';
import {type RunningEmulator, startEmulator} from '../../../src/emulator/index.js';
import {accountClient, signIn} from '../../helpers/account-client.js';
import {EMULATOR_BACKENDS} from '../../helpers/emulator-backends.js';
import {describeEachBackend} from '../../helpers/requirements.js';
import {type HoldReceiver, startHoldReceiver} from './hold-receiver.js';

let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

describeEachBackend(EMULATOR_BACKENDS, 'delete means gone ($name)', (backend) => {
  const logs: string[] = [];

  async function emulator(): Promise<RunningEmulator> {
    const storage = await backend.options();
    const emu = await startEmulator({
      ...storage.options,
      port: 0,
      clock: 'manual',
      allowLocalEndpoints: true,
      log: (line) => logs.push(line),
    });
    cleanups.push(storage.dispose, () => emu.stop());
    return emu;
  }
  async function receiver(): Promise<HoldReceiver> {
    const r = await startHoldReceiver();
    cleanups.push(() => r.close());
    return r;
  }

  /**
   * An endpoint of `orgId` whose lane is caught mid-batch: its second delivery's request is held at the receiver,
   * three more are claimed behind it, and one more is queued in the database. Returns the deliveries' ids.
   */
  async function laneCaughtMidBatch(emu: RunningEmulator, r: HoldReceiver, orgId: string) {
    const webhook = await emu.control.createWebhook({url: r.url, events: ['sandbox.error'], org_id: orgId});
    const trigger = async () =>
      (await emu.control.trigger({type: 'sandbox.error', org_id: orgId})).event?.id as string;
    const events = [await trigger()];
    await r.arrived(1);
    // Recorded while the first request is held: they wait for the endpoint's lane.
    for (let i = 0; i < 4; i++) events.push(await trigger());
    r.release();
    // The lane's next batch: the second request is held, the three after it claimed.
    await r.arrived(2);
    events.push(await trigger());
    return {webhook, events};
  }

  /** Lets the held request go, answers every later one at once, and waits until nothing is left to attempt. */
  async function drain(emu: RunningEmulator, r: HoldReceiver) {
    r.holding = false;
    r.release();
    await emu.control.advanceClock('0s', {settle: true});
  }

  it('deleting an endpoint cancels its claimed and queued attempts: no request starts after the DELETE answers', async () => {
    const emu = await emulator();
    const r = await receiver();
    const {webhook, events} = await laneCaughtMidBatch(emu, r, emu.orgId);
    await emu.control.deleteWebhook(webhook.id);
    const atAnswer = r.arrivals.length;
    expect(atAnswer).toBe(2);

    await drain(emu, r);
    expect(r.arrivals).toHaveLength(atAnswer);
    for (const id of events) {
      await expect(emu.control.waitForDelivery({event_id: id, timeout: 1})).rejects.toMatchObject({
        status: 408,
      });
    }
    // The emulator goes on: another endpoint gets its delivery.
    const other = await receiver();
    other.holding = false;
    await emu.control.createWebhook({url: other.url, events: ['sandbox.error']});
    const {event} = await emu.control.trigger({type: 'sandbox.error'});
    expect(
      (await emu.control.waitForDelivery({event_id: event?.id as string, status: 'succeeded'})).attempts,
    ).toHaveLength(1);
  });

  it("deleting an org does the same for its endpoints' attempts, and ends the browser sessions looking at it", async () => {
    const emu = await emulator();
    // The first person to sign in owns the default org; the second gets an org of their own.
    const first = accountClient(new URL(emu.accountUrl).origin);
    expect((await signIn(first, 'first@example.com', logs)).status).toBe(303);
    const second = accountClient(new URL(emu.accountUrl).origin);
    expect((await signIn(second, 'second@example.com', logs)).status).toBe(303);
    // Served twice: on PGlite the session is then held in memory.
    expect((await second.request('/account/keys')).status).toBe(200);
    expect((await second.request('/account/keys')).status).toBe(200);
    const {rows} = await emu.db.query<{org_id: string}>(
      `SELECT m.org_id FROM memberships m JOIN persons p ON p.id = m.person_id WHERE p.email = $1`,
      ['second@example.com'],
    );
    const orgId = rows[0]?.org_id as string;
    expect(orgId).not.toBe(emu.orgId);

    const r = await receiver();
    await laneCaughtMidBatch(emu, r, orgId);
    expect(await emu.control.deleteOrg(orgId)).toEqual({deleted: true, org_id: orgId});
    const atAnswer = r.arrivals.length;
    expect(atAnswer).toBe(2);

    const after = await second.request('/account/keys');
    expect(after.status).toBe(401);
    expect(after.text).toContain('Sign in');
    // The owner of the default org is still signed in.
    expect((await first.request('/account/keys')).status).toBe(200);

    await drain(emu, r);
    expect(r.arrivals).toHaveLength(atAnswer);
  });
});
