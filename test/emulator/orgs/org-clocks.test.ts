// Backends: org clocks live in the database (org_clocks), and on PostgreSQL a move's settle asks the database
// what is still due and waits for word of recorded attempts, where on PGlite it waits for its one worker.
// Orgs as the unit of isolation on one emulator: each org's own clock moves its deliveries' schedule, its keys'
// expiry and the times it shows and signs, and no other org's; reset and delete take one org's state away. One
// emulator per storage for the file: each test works in orgs of its own, and none moves the emulator's own clock.
import {afterAll, afterEach, beforeAll, expect, it} from 'vitest';
import {EmulatorControlError} from '../../../src/client/emulator-control.js';
import {RETENTION_MS, RETRY_WAITS_MS} from '../../../src/definitions.js';
import {type RunningEmulator, startEmulator} from '../../../src/emulator/index.js';
import {verifySignature} from '../../../src/webhooks/index.js';
import {EMULATOR_BACKENDS} from '../../helpers/emulator-backends.js';
import {describeEachBackend} from '../../helpers/requirements.js';
import {answer, type Receiver, startReceiver} from '../delivery/helpers.js';

const START = new Date('2031-05-01T12:00:00.000Z');
const FIRST_WAIT_S = (RETRY_WAITS_MS[0] as number) / 1000;

let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

describeEachBackend(EMULATOR_BACKENDS, 'org clocks ($name)', (backend) => {
  let shared: RunningEmulator;
  let dispose: () => Promise<void> = async () => {};
  beforeAll(async () => {
    const storage = await backend.options();
    dispose = storage.dispose;
    shared = await startEmulator({
      ...storage.options,
      port: 0,
      clock: 'manual',
      clockStart: START,
      signatureClock: 'emulator',
      allowLocalEndpoints: true,
    });
  });
  afterAll(async () => {
    await shared?.stop();
    await dispose();
  });
  const emulator = async (): Promise<RunningEmulator> => shared;
  async function failingReceiver(): Promise<Receiver> {
    const r = await startReceiver(answer(500));
    cleanups.push(() => r.close());
    return r;
  }

  it("moves one org's retries, signatures and times, and no other org's", async () => {
    const emu = await emulator();
    const [a, b] = await Promise.all([
      emu.control.createOrg({name: 'file a'}),
      emu.control.createOrg({name: 'file b'}),
    ]);
    const [ra, rb] = await Promise.all([failingReceiver(), failingReceiver()]);
    const wa = await emu.control.createWebhook({url: ra.url, events: ['sandbox.error'], org_id: a.id});
    await emu.control.createWebhook({url: rb.url, events: ['sandbox.error'], org_id: b.id});
    const ea = await emu.control.trigger({type: 'sandbox.error', org_id: a.id});
    const eb = await emu.control.trigger({type: 'sandbox.error', org_id: b.id});
    const firstA = await emu.control.waitForDelivery({event_id: ea.event?.id as string});
    const firstB = await emu.control.waitForDelivery({event_id: eb.event?.id as string});
    expect(firstA.delivery.attempts).toBe(1);

    // One second short of the first retry: nothing is due, and settle answers without an attempt.
    await emu.control.advanceClock(`${FIRST_WAIT_S - 1}s`, {org: a.id, settle: true});
    expect((await emu.control.delivery(firstA.delivery.id)).attempts).toHaveLength(1);
    const moved = await emu.control.advanceClock('1s', {org: a.id, settle: true});
    expect(moved).toMatchObject({
      org_id: a.id,
      own: true,
      now: new Date(START.getTime() + FIRST_WAIT_S * 1000).toISOString(),
    });

    const afterA = await emu.control.delivery(firstA.delivery.id);
    expect(afterA.attempts).toHaveLength(2);
    // Org b never noticed: one attempt, its next one still where it was.
    const afterB = await emu.control.delivery(firstB.delivery.id);
    expect(afterB.attempts).toHaveLength(1);
    expect(afterB.delivery.next_attempt_at).toBe(firstB.delivery.next_attempt_at);
    expect((await emu.control.orgClock(b.id)).own).toBe(false);

    // The second attempt was signed at org a's time, which its receiver (sharing that clock) accepts.
    const second = ra.requests[1];
    const t = Number(/t=(\d+)/.exec(String(second?.headers['svc-signature']))?.[1]);
    expect(t).toBe(Math.floor(new Date(moved.now).getTime() / 1000));
    expect(() =>
      verifySignature({
        secret: wa.secret,
        header: String(second?.headers['svc-signature']),
        payload: second?.body ?? '',
        now: t,
      }),
    ).not.toThrow();
    // Times shown for org a are its own.
    const key = await emu.control.createKey({name: 'a key', org_id: a.id});
    expect(key.created_at).toBe(moved.now);
    // The emulator's clock stayed.
    expect((await emu.control.clock()).now).toBe(START.toISOString());
  });

  it("makes a resend at the org's own time, signed at it", async () => {
    const emu = await emulator();
    const a = await emu.control.createOrg({name: 'resend'});
    const r = await startReceiver();
    cleanups.push(() => r.close());
    await emu.control.createWebhook({url: r.url, events: ['sandbox.error'], org_id: a.id});
    const moved = await emu.control.advanceClock('2h', {org: a.id});
    const event = await emu.control.trigger({type: 'sandbox.error', org_id: a.id});
    const first = await emu.control.waitForDelivery({
      event_id: event.event?.id as string,
      status: 'succeeded',
    });
    expect(first.attempts[0]?.started_at).toBe(moved.now);

    const resent = await emu.control.resendDelivery(first.delivery.id);
    expect(resent.attempts).toHaveLength(2);
    expect(resent.attempts[1]).toMatchObject({trigger: 'manual', started_at: moved.now});
    expect(resent.attempts[1]?.signature_t).toBe(Math.floor(new Date(moved.now).getTime() / 1000));
    expect(resent.delivery.last_attempt_at).toBe(moved.now);
  });

  it("makes a chaos duplicate at the org's own time, signed at it", async () => {
    const emu = await emulator();
    const a = await emu.control.createOrg({name: 'chaos'});
    const r = await startReceiver();
    cleanups.push(() => r.close());
    const wh = await emu.control.createWebhook({url: r.url, events: ['sandbox.error'], org_id: a.id});
    await emu.control.setChaos(wh.id, {
      seed: 1,
      duplicate: 1,
      reorder: 0,
      delay_min_ms: 0,
      delay_max_ms: 0,
    });
    const moved = await emu.control.advanceClock('3h', {org: a.id});
    const event = await emu.control.trigger({type: 'sandbox.error', org_id: a.id});
    const detail = await emu.control.waitForDelivery({event_id: event.event?.id as string, attempts: 2});
    expect(detail.attempts.map((x) => x.trigger)).toEqual(['scheduled', 'chaos']);
    for (const attempt of detail.attempts) {
      expect(attempt.started_at).toBe(moved.now);
      expect(attempt.signature_t).toBe(Math.floor(new Date(moved.now).getTime() / 1000));
    }
  });

  it("keeps a delivery's detail for the retention of its org's own clock", async () => {
    const emu = await emulator();
    const [a, b] = await Promise.all([
      emu.control.createOrg({name: 'kept a'}),
      emu.control.createOrg({name: 'kept b'}),
    ]);
    const r = await startReceiver();
    cleanups.push(() => r.close());
    const ids: string[] = [];
    for (const org of [a, b]) {
      await emu.control.createWebhook({url: r.url, events: ['sandbox.error'], org_id: org.id});
      const event = await emu.control.trigger({type: 'sandbox.error', org_id: org.id});
      ids.push((await emu.control.waitForDelivery({event_id: event.event?.id as string})).delivery.id);
    }
    const [ofA, ofB] = ids as [string, string];
    await emu.control.advanceClock(`${RETENTION_MS / 1000 + 1}s`, {org: a.id, settle: true});
    // Past retention on org a's clock, gone for it; org b's clock never moved.
    await expect(emu.control.delivery(ofA)).rejects.toMatchObject({status: 404, code: 'not_found'});
    expect((await emu.control.delivery(ofB)).delivery.id).toBe(ofB);
  });

  it("expires an org's keys on its own clock only", async () => {
    const emu = await emulator();
    const a = await emu.control.createOrg({name: 'a'});
    const b = await emu.control.createOrg({name: 'b'});
    const ka = await emu.control.createKey({name: 'a', expires: '30', org_id: a.id});
    const kb = await emu.control.createKey({name: 'b', expires: '30', org_id: b.id});
    const org = (secret: string) =>
      fetch(`${emu.apiUrl}/v1/org`, {headers: {authorization: `Bearer ${secret}`}});
    expect((await org(ka.secret)).status).toBe(200);
    await emu.control.advanceClock('31d', {org: a.id});
    expect((await org(ka.secret)).status).toBe(401);
    expect((await org(kb.secret)).status).toBe(200);
  });

  it('resets and deletes one org, leaving the others as they were', async () => {
    const emu = await emulator();
    const a = await emu.control.createOrg({name: 'a'});
    const b = await emu.control.createOrg({name: 'b'});
    const r = await failingReceiver();
    for (const org of [a, b]) {
      await emu.control.createWebhook({url: r.url, events: ['sandbox.ready'], org_id: org.id});
      await emu.control.createSandbox({org_id: org.id});
    }
    const ka = await emu.control.createKey({name: 'a', org_id: a.id});
    await emu.control.advanceClock('1h', {org: a.id});
    expect(await emu.control.resetOrg(a.id)).toEqual({reset: true, org_id: a.id});
    expect((await emu.control.listSandboxes(a.id)).data).toEqual([]);
    expect((await emu.control.listSandboxes(b.id)).data).toHaveLength(1);
    expect((await emu.control.orgClock(a.id)).own).toBe(false);
    const answered = await fetch(`${emu.apiUrl}/v1/org`, {headers: {authorization: `Bearer ${ka.secret}`}});
    expect(answered.status).toBe(401);

    expect(await emu.control.deleteOrg(b.id)).toEqual({deleted: true, org_id: b.id});
    await expect(emu.control.listSandboxes(b.id)).rejects.toMatchObject({code: 'not_found'});
    const defaultOrg = (await emu.control.health()).org_id;
    await expect(emu.control.deleteOrg(defaultOrg)).rejects.toMatchObject({status: 409, code: 'conflict'});
    await expect(emu.control.resetOrg('org_nope')).rejects.toMatchObject({status: 404});
  });

  it('answers a wait that runs out with 408 timeout, and refuses a wait that names nothing', async () => {
    const emu = await emulator();
    const err = await emu.control
      .waitForDelivery({event_id: 'evt_000000000000000000000000', timeout: 50})
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EmulatorControlError);
    expect(err).toMatchObject({status: 408, code: 'timeout'});
    const bad = await fetch(`${emu.apiUrl}/_emulator/delivery-wait`, {
      method: 'POST',
      headers: {authorization: `Bearer ${emu.adminToken}`, 'content-type': 'application/json'},
      body: JSON.stringify({status: 'done'}),
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as {error: {message: string}}).error.message).toMatch(/event_id/);
  });

  it('says it is ready without the admin token, and nothing more', async () => {
    const emu = await emulator();
    const res = await fetch(`${emu.apiUrl}/_emulator/ready`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ready: true});
    expect((await fetch(`${emu.apiUrl}/_emulator/health`)).status).toBe(401);
  });

  it('names the field of a bad org clock move, and refuses a move of an org that does not exist', async () => {
    const emu = await emulator();
    const org = await emu.control.createOrg({name: 'x'});
    await expect(emu.control.advanceClock('soon' as '1s', {org: org.id})).rejects.toMatchObject({
      status: 400,
      code: 'invalid_request',
    });
    await expect(emu.control.advanceClock('1s', {org: 'org_000000000000000000000000'})).rejects.toMatchObject(
      {
        status: 404,
      },
    );
  });
});
