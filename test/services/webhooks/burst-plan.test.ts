// `--burst RATE[:DURATION]` as the burst check reads it: the rate per second or minute, the duration (its default
// when left out), and the bounds of BURST_CHECK, each refused past its edge with a usage error.
import {describe, expect, it} from 'vitest';
import {BURST_CHECK} from '../../../src/definitions.js';
import {planBurst} from '../../../src/services/webhooks/burst.js';

describe('planBurst', () => {
  it('reads a rate per second or per minute and a duration, with the default run when none is given', () => {
    expect(planBurst('50/s:20s')).toEqual({ratePerSecond: 50, durationMs: 20_000, count: 1000});
    expect(planBurst('120/m:1m')).toEqual({ratePerSecond: 2, durationMs: 60_000, count: 120});
    expect(planBurst('5')).toEqual({
      ratePerSecond: 5,
      durationMs: BURST_CHECK.defaultDurationMs,
      count: (5 * BURST_CHECK.defaultDurationMs) / 1000,
    });
    expect(planBurst(undefined)).toBeUndefined();
  });

  it('takes the bounds themselves and refuses one past them', () => {
    const max = BURST_CHECK.maxRatePerSecond;
    const longest = `${BURST_CHECK.maxDurationMs / 1000}s`;
    expect(planBurst(`${max}/s:${longest}`)?.count).toBe((max * BURST_CHECK.maxDurationMs) / 1000);
    expect(() => planBurst(`${max + 1}/s`)).toThrow(/at most \d+ deliveries a second/);
    expect(() => planBurst(`${max * 60 + 60}/m`)).toThrow(/at most \d+ deliveries a second/);
    expect(() => planBurst(`1/s:${BURST_CHECK.maxDurationMs / 1000 + 1}s`)).toThrow(/runs at most \d+ s/);
  });

  it('refuses what is no rate, no duration, or sends nothing', () => {
    for (const text of ['', 'fast', '50/h', '-5/s', '50/s:20s:1m']) {
      expect(() => planBurst(text), text).toThrow(/is not RATE\[:DURATION\]/);
    }
    expect(() => planBurst('5/s:soon')).toThrow(/is not a duration/);
    expect(() => planBurst('0/s')).toThrow(/the rate must be above 0/);
    expect(() => planBurst('1/m:1s')).toThrow(/sends no delivery/);
  });
});
