// Clocks are consistent: a clock move is checked and made as one, so moves made at once cannot together take a
// clock (the emulator's, an org's) past the times it can show; an impossible date is refused, not read as another;
// org clocks exist only on a manual clock; and a snapshot carries each org's own clock.
// Backends: a clock move takes a lock and checks its range in one statement, which each database runs its own way.
import {afterEach, describe, expect, it} from 'vitest';
import {EmulatorControlError} from '../../../src/client/emulator-control.js';
import {LATEST_CLOCK_MS} from '../../../src/definitions.js';
import {type RunningEmulator, startEmulator} from '../../../src/emulator/index.js';
import {EMULATOR_BACKENDS} from '../../helpers/emulator-backends.js';
import {describeEachBackend} from '../../helpers/requirements.js';

const START = new Date('2031-05-01T12:00:00.000Z');
/** 2,900,000 days: about 7,940 years, so one fits between 2031 and 9998 and two do not. */
const HUGE = '2900000d';

let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

/** What each promise came to: its value, or the control error it was refused with. */
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

describeEachBackend(EMULATOR_BACKENDS, 'clock moves ($name)', (backend) => {
  async function emulator(clock: 'manual' | 'real' = 'manual'): Promise<RunningEmulator> {
    const storage = await backend.options();
    const emu = await startEmulator({...storage.options, port: 0, clock, clockStart: START});
    cleanups.push(storage.dispose, () => emu.stop());
    return emu;
  }

  it("lets one of two parallel advances of an org's clock by 2,900,000 days through, and refuses the other", async () => {
    const emu = await emulator();
    const org = await emu.control.createOrg({name: 'far future'});
    const results = await outcomes([
      emu.control.advanceClock(HUGE, {org: org.id}),
      emu.control.advanceClock(HUGE, {org: org.id}),
    ]);
    const refused = results.filter((r) => r instanceof EmulatorControlError);
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({status: 400, code: 'invalid_request'});
    expect(refused[0]?.message).toMatch(/^advance would move the clock outside the times it can show/);
    const now = Date.parse((await emu.control.orgClock(org.id)).now);
    expect(now).toBe(START.getTime() + 2_900_000 * 86_400_000);
    expect(now).toBeLessThanOrEqual(LATEST_CLOCK_MS);
    // Everything of the org still works at its time, and the whole state can still be read.
    expect((await emu.control.createKey({name: 'late', org_id: org.id})).created_at).toBe(
      new Date(now).toISOString(),
    );
    expect((await emu.control.trigger({type: 'sandbox.ready', org_id: org.id})).event?.type).toBe(
      'sandbox.ready',
    );
    const snapshot = await emu.exportState();
    expect(snapshot.org_clocks).toEqual([{org_id: org.id, now: new Date(now).toISOString()}]);
  });

  it("lets one of two parallel advances of the emulator's clock by 2,900,000 days through", async () => {
    const emu = await emulator();
    const results = await outcomes([emu.control.advanceClock(HUGE), emu.control.advanceClock(HUGE)]);
    expect(results.filter((r) => r instanceof EmulatorControlError)).toHaveLength(1);
    expect(Date.parse((await emu.control.clock()).now)).toBe(START.getTime() + 2_900_000 * 86_400_000);
  });

  it("refuses to move the emulator's clock where an org's own clock, ahead of it, would leave the range", async () => {
    const emu = await emulator();
    const org = await emu.control.createOrg({name: 'ahead'});
    await emu.control.advanceClock(HUGE, {org: org.id});
    const results = await outcomes([
      emu.control.advanceClock('1000000d'),
      emu.control.advanceClock('1000000d', {org: org.id}),
    ]);
    for (const r of results) expect(r).toMatchObject({status: 400, code: 'invalid_request'});
    expect((await emu.control.clock()).now).toBe(START.toISOString());
    // Within range it moves, and the org's clock with it.
    await emu.control.advanceClock('1d');
    expect(Date.parse((await emu.control.orgClock(org.id)).now)).toBe(
      START.getTime() + 2_900_001 * 86_400_000,
    );
  });

  it.each([
    ['2030-02-30T00:00:00Z', 'must be a date that exists: February 2030 has 28 days, so 2030-02-30 is none'],
    ['2032-02-30T00:00:00Z', 'must be a date that exists: February 2032 has 29 days, so 2032-02-30 is none'],
    [
      '2030-04-31T10:00:00+02:00',
      'must be a date that exists: April 2030 has 30 days, so 2030-04-31 is none',
    ],
    ['2030-13-01T00:00:00Z', 'must be a date that exists: 2030-13-01 has no month 13'],
    ['2030-01-01T24:00:00Z', 'must be a time that exists: hours run 00 to 23, minutes and seconds 00 to 59'],
  ])('refuses to set the clock to %s with 400 and says why; nothing moves', async (iso, why) => {
    const emu = await emulator();
    const org = await emu.control.createOrg({name: 'dated'});
    // One after another: a refusal that came while the test still awaited the other would go unhandled.
    for (const move of [() => emu.control.setClock(iso), () => emu.control.setClock(iso, {org: org.id})]) {
      const err = await move().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(EmulatorControlError);
      expect(err).toMatchObject({status: 400, code: 'invalid_request', message: `set ${why}`});
    }
    expect((await emu.control.clock()).now).toBe(START.toISOString());
    expect(await emu.control.orgClock(org.id)).toMatchObject({now: START.toISOString(), own: false});
    // A real date is taken as written.
    expect((await emu.control.setClock('2032-02-29T23:59:59Z')).now).toBe('2032-02-29T23:59:59.000Z');
  });

  it('keeps every org clock out of a real-clock emulator, saying why', async () => {
    const emu = await emulator('real');
    const org = await emu.control.createOrg({name: 'real'});
    // One after another: a refusal that came while the test still awaited the other would go unhandled.
    for (const move of [
      () => emu.control.advanceClock('1h', {org: org.id}),
      () => emu.control.setClock('2040-01-01T00:00:00Z', {org: org.id}),
    ]) {
      const err = await move().catch((e: unknown) => e);
      expect(err).toMatchObject({status: 409, code: 'conflict'});
      expect((err as Error).message).toMatch(/org clocks exist only on a manual clock/);
      expect((err as Error).message).toMatch(/--clock manual/);
    }
    expect(await emu.control.orgClock(org.id)).toMatchObject({mode: 'real', own: false});
    expect((await emu.exportState()).org_clocks).toEqual([]);
  });

  it("carries each org's own clock through a snapshot", async () => {
    const emu = await emulator();
    const [ahead, behind, plain] = await Promise.all([
      emu.control.createOrg({name: 'ahead'}),
      emu.control.createOrg({name: 'behind'}),
      emu.control.createOrg({name: 'plain'}),
    ]);
    const aheadNow = (await emu.control.advanceClock('2h', {org: ahead.id})).now;
    const behindNow = (await emu.control.setClock('2031-01-01T00:00:00Z', {org: behind.id})).now;
    await emu.control.advanceClock('10m');
    const snapshot = await emu.exportState();
    const tenMinutes = (iso: string) => new Date(Date.parse(iso) + 600_000).toISOString();
    expect(snapshot.org_clocks).toEqual(
      expect.arrayContaining([
        {org_id: ahead.id, now: tenMinutes(aheadNow)},
        {org_id: behind.id, now: tenMinutes(behindNow)},
      ]),
    );
    expect(snapshot.org_clocks).toHaveLength(2);

    // Loaded where the clock reads another time: each org's clock shows what it showed when exported.
    const other = await emulator();
    await other.control.setClock('2040-06-01T00:00:00Z');
    const loaded = await other.control.importState({
      source: 'state.json',
      document: snapshot,
      mode: 'replace',
    });
    expect(loaded).toMatchObject({kind: 'snapshot', clock: 'set'});
    expect((await other.control.clock()).now).toBe(snapshot.clock.now);
    expect(await other.control.orgClock(ahead.id)).toMatchObject({now: tenMinutes(aheadNow), own: true});
    expect(await other.control.orgClock(behind.id)).toMatchObject({now: tenMinutes(behindNow), own: true});
    expect(await other.control.orgClock(plain.id)).toMatchObject({now: snapshot.clock.now, own: false});
    // And the next export is the same picture.
    expect((await other.exportState()).org_clocks).toEqual(snapshot.org_clocks);
  });
});

describe('snapshot org clocks', () => {
  it('are refused when they name an org the file does not hold, or a time outside the range', async () => {
    const emu = await startEmulator({inMemory: true, port: 0, clock: 'manual', clockStart: START});
    cleanups.push(() => emu.stop());
    const snapshot = await emu.exportState();
    const err = await emu.control
      .importState({
        source: 'state.json',
        mode: 'replace',
        document: {
          ...snapshot,
          org_clocks: [
            {org_id: 'org_000000000000000000000000', now: START.toISOString()},
            {org_id: snapshot.default_org_id, now: '9999-06-01T00:00:00Z'},
          ],
        },
      })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({status: 400});
    expect((err as Error).message).toContain(
      'org_clocks[0].org_id: names the org org_000000000000000000000000',
    );
    expect((err as Error).message).toContain('org_clocks[1].now: is outside the dates an org clock can show');
  });
});
