// Test files apart by design: the emulator issues control tokens narrower than its admin token. A token of one org
// reaches that org's routes (its clock, reset, keys, endpoints, sandboxes, triggers, deliveries) and is refused,
// 403 `forbidden` naming the org it reaches, for another org, for a record of another org and for what is the
// whole emulator's (its clock, its state, its log); a token that makes orgs does nothing else.
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {EmulatorControl, EmulatorControlError} from '../../../src/client/emulator-control.js';
import {type RunningEmulator, startEmulator} from '../../../src/emulator/index.js';

let emu: RunningEmulator;
/** Two orgs, each with the control client of its own token, and the records of the second. */
let a: {control: EmulatorControl; orgId: string};
let b: {control: EmulatorControl; orgId: string};
let bRecords: {keyId: string; webhookId: string; sandboxId: string; eventId: string; deliveryId: string};

beforeAll(async () => {
  emu = await startEmulator({
    port: 0,
    inMemory: true,
    clock: 'manual',
    clockStart: new Date('2031-01-01T00:00:00Z'),
    // Endpoints on a closed loopback port: every attempt fails at once, and nothing leaves the machine.
    allowLocalEndpoints: true,
    log: () => undefined,
  });
  const issued = await Promise.all(
    ['file a', 'file b'].map((name) => emu.control.createControlToken({new_org: name})),
  );
  [a, b] = issued.map((t) => ({
    control: new EmulatorControl({url: emu.apiUrl, adminToken: t.token}),
    orgId: t.org?.id as string,
  })) as [typeof a, typeof b];
  const key = await b.control.createKey({name: 'b', org_id: b.orgId});
  const hook = await b.control.createWebhook({
    url: 'http://127.0.0.1:9/b',
    events: ['sandbox.ready'],
    org_id: b.orgId,
  });
  const move = await b.control.trigger({type: 'sandbox.ready', org_id: b.orgId});
  const eventId = move.event?.id as string;
  const delivery = await emu.control.waitForDelivery({event_id: eventId});
  bRecords = {
    keyId: key.id,
    webhookId: hook.id,
    sandboxId: move.sandbox.id,
    eventId,
    deliveryId: delivery.delivery.id,
  };
});
afterAll(async () => {
  await emu?.stop();
});

/** The control error a call was refused with. */
async function refusal(call: Promise<unknown>): Promise<EmulatorControlError> {
  const err = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof EmulatorControlError)) throw new Error(`not refused: ${String(err)}`);
  return err;
}

describe("a token of one org, on another org's routes", () => {
  it.each([
    ['moves its clock', () => a.control.advanceClock('1m', {org: b.orgId})],
    ['moves its clock and settles', () => a.control.advanceClock('1m', {org: b.orgId, settle: true})],
    ['reads its clock', () => a.control.orgClock(b.orgId)],
    ['resets it', () => a.control.resetOrg(b.orgId)],
    ['deletes it', () => a.control.deleteOrg(b.orgId)],
    ['triggers into it', () => a.control.trigger({type: 'sandbox.ready', org_id: b.orgId})],
    ['makes a key in it', () => a.control.createKey({name: 'x', org_id: b.orgId})],
    ['lists its sandboxes', () => a.control.listSandboxes(b.orgId)],
    ['lists its links', () => a.control.listLinks({org_id: b.orgId})],
    ['reads its delivery', () => a.control.delivery(bRecords.deliveryId)],
    ['waits for its event', () => a.control.waitForDelivery({event_id: bRecords.eventId, timeout: 0})],
    [
      'waits for its delivery',
      () => a.control.waitForDelivery({delivery_id: bRecords.deliveryId, timeout: 0}),
    ],
    ['resends its delivery', () => a.control.resendDelivery(bRecords.deliveryId)],
    ['resends its failed deliveries', () => a.control.resendFailed({org_id: b.orgId})],
    ['revokes its key', () => a.control.revokeKey(bRecords.keyId)],
    ['deletes its endpoint', () => a.control.deleteWebhook(bRecords.webhookId)],
    ["reads its endpoint's chaos", () => a.control.getChaos(bRecords.webhookId)],
    ['acts on its sandbox', () => a.control.sandboxAction(bRecords.sandboxId, 'stop')],
    [
      "triggers on its sandbox in the token's own org",
      () => a.control.trigger({type: 'sandbox.ready', org_id: a.orgId, sandbox_id: bRecords.sandboxId}),
    ],
  ])('is refused: %s', async (_what, call) => {
    const err = await refusal(call());
    expect(err.status).toBe(403);
    expect(err.code).toBe('forbidden');
    expect(err.message).toContain(`reaches org ${a.orgId} only`);
    expect(err.message).toContain(b.orgId);
  });

  it('left the other org as it was: its clock, its key, its endpoint, its delivery', async () => {
    expect((await b.control.orgClock(b.orgId)).own).toBe(false);
    expect((await b.control.delivery(bRecords.deliveryId)).attempts).toHaveLength(1);
    const key = await b.control.revokeKey(bRecords.keyId);
    expect(key.revoked_at).not.toBeNull();
  });
});

describe('a token of one org, on what is the whole emulator', () => {
  it.each([
    ["moves the emulator's clock", () => a.control.advanceClock('1m')],
    ["reads the emulator's clock", () => a.control.clock()],
    ['acts on the default org (no org_id)', () => a.control.trigger({type: 'sandbox.ready'})],
    ['makes an org', () => a.control.createOrg({name: 'more'})],
    ['issues a token', () => a.control.createControlToken({new_org: 'more'})],
    ['exports the state', () => a.control.exportState()],
    ['resets the state', () => a.control.resetState()],
    ['reads the request log', () => a.control.logs()],
    ['resets the limiter', () => a.control.resetLimiter()],
    ['asks for health', () => a.control.health()],
  ])('is refused: %s', async (_what, call) => {
    const err = await refusal(call());
    expect(err.status).toBe(403);
    expect(err.code).toBe('forbidden');
    expect(err.message).toMatch(/admin token of emulator\.json/);
  });
});

describe('a token of one org, on its own org', () => {
  it('moves and reads its clock (settling), triggers, makes keys and endpoints, reads and waits for deliveries, resets, deletes', async () => {
    const moved = await a.control.advanceClock('1h', {org: a.orgId, settle: true});
    expect(moved).toMatchObject({org_id: a.orgId, own: true});
    expect((await a.control.orgClock(a.orgId)).now).toBe(moved.now);
    await a.control.createKey({name: 'own', org_id: a.orgId});
    const hook = await a.control.createWebhook({
      url: 'http://127.0.0.1:9/a',
      events: ['sandbox.ready'],
      org_id: a.orgId,
    });
    await a.control.setChaos(hook.id, {duplicate: 0});
    const move = await a.control.trigger({type: 'sandbox.ready', org_id: a.orgId});
    const waited = await a.control.waitForDelivery({event_id: move.event?.id as string});
    expect((await a.control.delivery(waited.delivery.id)).endpoint_id).toBe(hook.id);
    expect((await a.control.listSandboxes(a.orgId)).data.map((s) => s.id)).toContain(move.sandbox.id);
    await a.control.sandboxAction(move.sandbox.id, 'stop', {org_id: a.orgId});
    expect(await a.control.resetOrg(a.orgId)).toEqual({reset: true, org_id: a.orgId});
    expect(await a.control.deleteOrg(a.orgId)).toEqual({deleted: true, org_id: a.orgId});
  });
});

describe('a token that makes orgs', () => {
  it('makes an org with a token of its own, and does nothing else', async () => {
    const maker = new EmulatorControl({
      url: emu.apiUrl,
      adminToken: (await emu.control.createControlToken({scope: 'new_orgs'})).token,
    });
    const made = await maker.createControlToken({new_org: 'file c'});
    expect(made).toMatchObject({scope: 'org', org: {name: 'file c'}});
    expect(made.token.startsWith('ctl_')).toBe(true);
    for (const call of [
      () => maker.createOrg({name: 'x'}),
      () => maker.createControlToken({org_id: b.orgId}),
      () => maker.createControlToken({scope: 'new_orgs'}),
      () => maker.orgClock(b.orgId),
      () => maker.clock(),
    ]) {
      const err = await refusal(call());
      expect([err.status, err.code]).toEqual([403, 'forbidden']);
      expect(err.message).toMatch(/only makes orgs/);
    }
  });
});

describe('tokens the emulator did not issue', () => {
  it('are refused as a wrong token (401), like any other', async () => {
    const forged = `ctl_${b.orgId}.${'A'.repeat(43)}`;
    const other = await startEmulator({port: 0, inMemory: true, log: () => undefined});
    try {
      const elsewhere = (await other.control.createControlToken({new_org: 'elsewhere'})).token;
      for (const token of [forged, elsewhere, `ctl_new_orgs.${'A'.repeat(43)}`]) {
        const err = await refusal(
          new EmulatorControl({url: emu.apiUrl, adminToken: token}).orgClock(b.orgId),
        );
        expect([err.status, err.code]).toEqual([401, 'unauthorized']);
      }
    } finally {
      await other.stop();
      await emu.control.resetLimiter();
    }
  });

  it('asks for exactly one of org_id, new_org or scope', async () => {
    for (const body of [{}, {org_id: b.orgId, new_org: 'x'}, {scope: 'everything'}, {new_org: ''}]) {
      const err = await refusal(emu.control.createControlToken(body as {new_org: string}));
      expect([err.status, err.code]).toEqual([400, 'invalid_request']);
    }
  });
});
