// Clock moves made at once through two emulator processes on one PostgreSQL: each is checked and made under the
// clocks' lock in one statement, so two advances that fit one at a time cannot both pass, whichever process each
// goes through, and the emulator's shared clock cannot take an org's own clock out of range either.
import {randomBytes} from 'node:crypto';
import {afterAll, beforeAll, expect, it} from 'vitest';
import {EmulatorControlError} from '../../../src/client/emulator-control.js';
import {LATEST_CLOCK_MS} from '../../../src/definitions.js';
import {describeNeeding, POSTGRES} from '../../helpers/requirements.js';
import {type EmulatorProcess, freshSchema, type Schema, startProcess} from './cluster.js';

const START = '2031-05-01T12:00:00.000Z';
const DAY_MS = 86_400_000;

async function outcomes<T>(moves: Promise<T>[]): Promise<(T | EmulatorControlError)[]> {
  return Promise.all(
    moves.map((m) =>
      m.catch((err: unknown) => {
        if (err instanceof EmulatorControlError) return err;
        throw err;
      }),
    ),
  );
}

describeNeeding([POSTGRES], 'clock moves across processes', () => {
  const vaultKey = randomBytes(32);
  let schema: Schema;
  let one: EmulatorProcess;
  let two: EmulatorProcess;

  beforeAll(async () => {
    schema = await freshSchema();
    one = await startProcess(schema.url, vaultKey, {clock: 'manual', clockStart: START});
    two = await startProcess(schema.url, vaultKey, {clock: 'manual', clockStart: START});
  }, 90_000);

  afterAll(async () => {
    await Promise.all([one?.stop(), two?.stop()]);
    await schema?.drop();
  });

  it("lets one of two advances of an org's clock by 2,900,000 days made at once through two processes through", {
    timeout: 60_000,
  }, async () => {
    const org = await one.control.createOrg({name: 'far'});
    const results = await outcomes([
      one.control.advanceClock('2900000d', {org: org.id}),
      two.control.advanceClock('2900000d', {org: org.id}),
    ]);
    expect(results.filter((r) => r instanceof EmulatorControlError)).toEqual([
      expect.objectContaining({status: 400, code: 'invalid_request'}),
    ]);
    const expected = new Date(Date.parse(START) + 2_900_000 * DAY_MS).toISOString();
    expect((await one.control.orgClock(org.id)).now).toBe(expected);
    expect((await two.control.orgClock(org.id)).now).toBe(expected);
    // Both processes still create at the org's time, and the state is still exported whole.
    expect((await two.control.createKey({name: 'late', org_id: org.id})).created_at).toBe(expected);
    expect((await one.control.exportState()).org_clocks).toEqual([{org_id: org.id, now: expected}]);

    // The emulator's clock, shared by both, cannot take that org past the range either, through either process.
    const moved = await outcomes([
      one.control.advanceClock('1000000d'),
      two.control.advanceClock('1000000d'),
    ]);
    for (const r of moved) expect(r).toMatchObject({status: 400, code: 'invalid_request'});
    expect((await two.control.clock()).now).toBe(START);
    expect(Date.parse((await one.control.orgClock(org.id)).now)).toBeLessThanOrEqual(LATEST_CLOCK_MS);
  });

  it('lets one of two advances of the shared clock by 2,900,000 days made at once through two processes through', {
    timeout: 60_000,
  }, async () => {
    await one.control.setClock(START);
    // The org of the test before runs far ahead; the default org follows the emulator's clock.
    await one.control.resetState();
    const results = await outcomes([
      one.control.advanceClock('2900000d'),
      two.control.advanceClock('2900000d'),
    ]);
    expect(results.filter((r) => r instanceof EmulatorControlError)).toHaveLength(1);
    const expected = new Date(Date.parse(START) + 2_900_000 * DAY_MS).toISOString();
    expect((await one.control.clock()).now).toBe(expected);
    expect((await two.control.clock()).now).toBe(expected);
  });

  it("carries an org's own clock through a snapshot loaded through one process, which the other then keeps", {
    timeout: 60_000,
  }, async () => {
    await one.control.setClock(START);
    const org = await one.control.createOrg({name: 'kept'});
    const exported = (await two.control.advanceClock('2h', {org: org.id})).now;
    const snapshot = await one.control.exportState();
    expect(snapshot.org_clocks).toEqual([{org_id: org.id, now: exported}]);
    // Moved on after the export, then the snapshot is loaded in place of the state through the other process.
    await two.control.advanceClock('5h', {org: org.id});
    await one.control.importState({source: 'state.json', document: snapshot, mode: 'replace'});
    for (const p of [one, two]) {
      expect(await p.control.orgClock(org.id)).toMatchObject({now: exported, own: true});
    }
  });
});
