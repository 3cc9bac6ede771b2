// Test files apart by design (issue 41, point 7): the global setup keeps the emulator's admin token and provides
// the files a token that only makes orgs; each file's fixture holds its own org's token, so the emulator refuses
// one file that moves, reads, resets or fires into another file's org (403 `forbidden`), while its own org works.
// The run is set up here as vitest sets it up: the global setup's default export, given a project to provide to.
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {EmulatorControl, EmulatorControlError} from '../../src/client/emulator-control.js';
import {RETRY_WAITS_MS} from '../../src/definitions.js';
import {
  createOrgFixture,
  type EmulatorConnection,
  OrgControl,
  type OrgFixture,
} from '../../src/testing/index.js';
import setup from '../../src/testing/vitest-setup.js';

const FIRST_WAIT_S = (RETRY_WAITS_MS[0] as number) / 1000;

let provided: EmulatorConnection;
let teardown: () => Promise<void>;
/** Two test files' fixtures on the run's emulator, each failing every delivery. */
let first: OrgFixture;
let second: OrgFixture;
let secondDeliveryId: string;

beforeAll(async () => {
  const project = {
    provide: (key: string, value: unknown) => {
      if (key === 'svcEmulator') provided = value as EmulatorConnection;
    },
  };
  teardown = await setup(project as unknown as Parameters<typeof setup>[0]);
  [first, second] = await Promise.all(
    ['file one', 'file two'].map((name) =>
      createOrgFixture(provided, {name, events: ['sandbox.error'], respond: 500}),
    ),
  );
  const move = await second.control.trigger({type: 'sandbox.error'});
  secondDeliveryId = (await second.control.waitForDelivery({event_id: move.event?.id as string})).delivery.id;
});
afterAll(async () => {
  await Promise.all([first?.dispose(), second?.dispose()]);
  await teardown?.();
});

async function refusal(call: Promise<unknown>): Promise<EmulatorControlError> {
  const err = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof EmulatorControlError)) throw new Error(`not refused: ${String(err)}`);
  return err;
}

describe("the run's connection", () => {
  it('holds a token that only makes orgs, not the admin token', async () => {
    expect(Object.keys(provided).sort()).toEqual(['token', 'url']);
    expect(provided.token.startsWith('ctl_')).toBe(true);
    const held = new EmulatorControl({url: provided.url, adminToken: provided.token});
    for (const call of [() => held.exportState(), () => held.advanceClock('1m'), () => held.resetState()]) {
      expect((await refusal(call())).status).toBe(403);
    }
  });
});

describe("one fixture reaching into another fixture's org", () => {
  it.each([
    [
      "moves the other org's clock",
      () => first.control.emulator.advanceClock('1d', {org: second.org.id, settle: true}),
    ],
    ['resets the other org', () => new OrgControl(first.control.emulator, second.org.id).reset()],
    [
      "fires into the other org's receiver",
      () => new OrgControl(first.control.emulator, second.org.id).trigger({type: 'sandbox.error'}),
    ],
    ["reads the other org's delivery", () => first.control.delivery(secondDeliveryId)],
    [
      "waits on the other org's delivery",
      () => first.control.waitForDelivery({delivery_id: secondDeliveryId}),
    ],
    ['deletes the other org', () => first.control.emulator.deleteOrg(second.org.id)],
    ["moves the emulator's clock, every org's", () => first.control.emulator.advanceClock('1d')],
    ["exports the state, the other org's signing secret with it", () => first.control.emulator.exportState()],
  ])('is refused with 403 forbidden: %s', async (_what, call) => {
    const err = await refusal(call());
    expect([err.status, err.code]).toEqual([403, 'forbidden']);
    expect(err.message).toContain(`reaches org ${first.org.id} only`);
  });

  it('leaves the other file as it was: its clock its own to move, its delivery waiting for its retry', async () => {
    const clock = await second.control.clock();
    expect(clock.own).toBe(false);
    expect((await second.control.delivery(secondDeliveryId)).attempts).toHaveLength(1);
    await second.control.advanceClock(`${FIRST_WAIT_S}s`, {settle: true});
    const retried = await second.control.waitForDelivery({delivery_id: secondDeliveryId, attempts: 2});
    expect(retried.attempts).toHaveLength(2);
    expect(second.receiver.deliveries).toHaveLength(2);
    expect(first.receiver.deliveries).toHaveLength(0);
  });
});

describe("a fixture's own org", () => {
  it('works: its clock moves, its events reach its receiver, it resets', async () => {
    const move = await first.control.trigger({type: 'sandbox.error'});
    const delivery = await first.control.waitForDelivery({event_id: move.event?.id as string});
    await first.control.advanceClock(`${FIRST_WAIT_S}s`, {settle: true});
    expect((await first.control.delivery(delivery.delivery.id)).attempts).toHaveLength(2);
    expect(first.receiver.deliveries.map((d) => d.eventId)).toEqual([move.event?.id, move.event?.id]);
    expect((await first.control.clock()).own).toBe(true);
    await first.control.reset();
    expect((await first.control.clock()).own).toBe(false);
  });
});
