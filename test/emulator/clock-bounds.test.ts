// Time stays where dates can be stored: the manual clock refuses to leave 1970..9998 with 400, never
// breaking itself, and nothing derived from it (key expiry, sandbox expiry) can pass the year 9999.
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {checkClockTime, ClockRangeError, manualClock, parseDuration} from '../../src/emulator/clock.js';
import {EmulatorControlError, type RunningEmulator, startEmulator} from '../../src/emulator/index.js';
import {EARLIEST_CLOCK_MS, LATEST_CLOCK_MS, LATEST_DATE_MS} from '../../src/definitions.js';

describe('the manual clock', () => {
  it('refuses to move before the epoch or past its latest time, and stays where it was', () => {
    const clock = manualClock(new Date('2030-01-01T00:00:00Z'));
    const huge = parseDuration('100000000d') as number;
    expect(huge).toBe(100_000_000 * 86_400_000);
    expect(() => clock.advance(huge)).toThrow(ClockRangeError);
    expect(() => clock.set(new Date(-1))).toThrow(ClockRangeError);
    expect(() => clock.set(new Date(LATEST_CLOCK_MS + 1))).toThrow(ClockRangeError);
    expect(() => clock.set(new Date(Number.NaN))).toThrow(ClockRangeError);
    expect(clock.now().toISOString()).toBe('2030-01-01T00:00:00.000Z');
    clock.set(new Date(LATEST_CLOCK_MS));
    clock.set(new Date(EARLIEST_CLOCK_MS));
    expect(() => manualClock(new Date('+020000-01-01T00:00:00Z'))).toThrow(/a manual clock starts between/);
  });

  it('leaves a year between its latest time and the last storable date, so a 365-day expiry fits', () => {
    expect(LATEST_CLOCK_MS + 365 * 86_400_000).toBeLessThanOrEqual(LATEST_DATE_MS);
    expect(new Date(LATEST_DATE_MS).toISOString()).toBe('9999-12-31T23:59:59.999Z');
    expect(() => checkClockTime(LATEST_CLOCK_MS)).not.toThrow();
  });
});

describe('the clock route', () => {
  let em: RunningEmulator;
  beforeAll(async () => {
    em = await startEmulator({
      port: 0,
      inMemory: true,
      clock: 'manual',
      clockStart: new Date('2030-01-01T00:00:00Z'),
    });
  });
  afterAll(() => em?.stop());

  const refusal = (p: Promise<unknown>) =>
    p.then(
      () => undefined,
      (err: unknown) => err as EmulatorControlError,
    );

  it.each([
    ['advance', '100000000d'],
    ['advance', '3000000d'],
    ['set', '0000-01-01T00:00:00Z'],
    ['set', '1969-12-31T23:59:59Z'],
    ['set', '9999-06-01T00:00:00Z'],
  ])('refuses %s %s with 400, and everything that reads the clock still works', async (action, value) => {
    const err = await refusal(
      action === 'advance' ? em.control.advanceClock(value) : em.control.setClock(value),
    );
    expect(err).toBeInstanceOf(EmulatorControlError);
    expect(err?.status).toBe(400);
    expect(err?.message).toBe(
      `${action} would move the clock outside the times it can show, ` +
        '1970-01-01T00:00:00.000Z to 9998-12-31T00:00:00.000Z; nothing moved',
    );
    expect((await em.control.clock()).now).toBe('2030-01-01T00:00:00.000Z');
    expect((await em.control.createKey({name: 'still-works'})).id).toMatch(/^key_/);
    expect((await em.control.trigger({type: 'sandbox.ready'})).event?.type).toBe('sandbox.ready');
  });

  it('creates a 365-day key at the latest time the clock can show', async () => {
    await em.control.setClock(new Date(LATEST_CLOCK_MS).toISOString());
    try {
      const key = await em.control.createKey({name: 'last-year', expires: '365'});
      expect(key.expires_at).toBe('9999-12-31T00:00:00.000Z');
      const listed = await em.repos.keys.list(em.orgId);
      expect(listed.find((k) => k.id === key.id)?.expiresAt?.toISOString()).toBe(key.expires_at);
    } finally {
      await em.control.setClock('2030-01-01T00:00:00Z');
    }
  });

  it('refuses a sandbox that would expire after the year 9999', async () => {
    const err = await refusal(em.control.createSandbox({expires_in: '4000000d'}));
    expect(err?.status).toBe(400);
    expect(err?.message).toMatch(/expire after the year 9999/);
  });
});
