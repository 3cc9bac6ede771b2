// Delete means gone across emulator processes on one PostgreSQL: an endpoint (or its org) deleted through one
// process while the other process's lane holds its deliveries mid-batch gets no new request from either process
// once the DELETE has answered: the deleting process waits for the word of the one holding its deliveries. The
// receiver holds each request until the test lets it go; no sleeps.
import {randomBytes} from 'node:crypto';
import {afterAll, beforeAll, expect, it} from 'vitest';
import {describeNeeding, POSTGRES} from '../../helpers/requirements.js';
import {type HoldReceiver, startHoldReceiver} from '../delivery/hold-receiver.js';
import {type EmulatorProcess, freshSchema, type Schema, startProcess} from './cluster.js';

describeNeeding([POSTGRES], 'delete means gone across processes', () => {
  const vaultKey = randomBytes(32);
  let schema: Schema;
  let deleting: EmulatorProcess;
  let sending: EmulatorProcess;

  beforeAll(async () => {
    schema = await freshSchema();
    // The deleting process sends nothing itself: every request is the other process's.
    deleting = await startProcess(schema.url, vaultKey, {clock: 'manual', delivery: {worker: {maxLanes: 0}}});
    sending = await startProcess(schema.url, vaultKey, {clock: 'manual'});
  }, 90_000);

  afterAll(async () => {
    await Promise.all([deleting?.stop(), sending?.stop()]);
    await schema?.drop();
  });

  /** The sending process's lane for a new endpoint of `orgId`, caught with its second request held. */
  async function laneCaughtMidBatch(r: HoldReceiver, orgId?: string) {
    const webhook = await deleting.control.createWebhook({
      url: r.url,
      events: ['sandbox.error'],
      ...(orgId ? {org_id: orgId} : {}),
    });
    const trigger = () =>
      deleting.control.trigger({type: 'sandbox.error', ...(orgId ? {org_id: orgId} : {})});
    await trigger();
    await r.arrived(1);
    for (let i = 0; i < 4; i++) await trigger();
    r.release();
    await r.arrived(2);
    await trigger();
    return webhook;
  }

  async function drained(r: HoldReceiver) {
    r.holding = false;
    r.release();
    // Settled through the sending process: its worker has nothing left, and nothing is due anywhere.
    await sending.control.advanceClock('0s', {settle: true});
  }

  it('deleting an endpoint through one process stops the lane of the other', {timeout: 60_000}, async () => {
    const r = await startHoldReceiver();
    try {
      const webhook = await laneCaughtMidBatch(r);
      await deleting.control.deleteWebhook(webhook.id);
      const atAnswer = r.arrivals.length;
      expect(atAnswer).toBe(2);
      await drained(r);
      expect(r.arrivals).toHaveLength(atAnswer);
    } finally {
      await r.close();
    }
    expect(deleting.stderr()).not.toContain('no word from');
  });

  it("deleting an org through one process stops the other's lanes of its endpoints", {
    timeout: 60_000,
  }, async () => {
    const r = await startHoldReceiver();
    try {
      const org = await deleting.control.createOrg({name: 'going'});
      await laneCaughtMidBatch(r, org.id);
      await deleting.control.deleteOrg(org.id);
      const atAnswer = r.arrivals.length;
      expect(atAnswer).toBe(2);
      await drained(r);
      expect(r.arrivals).toHaveLength(atAnswer);
    } finally {
      await r.close();
    }
    expect(deleting.stderr()).not.toContain('no word from');
  });
});
