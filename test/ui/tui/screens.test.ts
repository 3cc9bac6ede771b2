// The TIME column of the deliveries screen on its own: the time of day for rows of one day, the day too otherwise.
import {describe, expect, it} from 'vitest';
import {timeColumn} from '../../../src/ui/tui/screens.js';

describe('timeColumn', () => {
  it('reads the time alone when every row is from the same day', () => {
    const noon = new Date(2031, 4, 1, 12, 0, 5);
    const evening = new Date(2031, 4, 1, 21, 30, 0);
    const time = timeColumn([noon.toISOString(), evening.toISOString()]);
    expect(time.width).toBe(8);
    expect(time.format(noon.toISOString())).toBe('12:00:05');
  });

  it('adds the day when rows are from different days, so a day apart never reads as an hour apart', () => {
    const late = new Date(2031, 10, 27, 0, 51, 43);
    const early = new Date(2031, 10, 26, 2, 9, 13);
    const time = timeColumn([late.toISOString(), early.toISOString()]);
    expect(time.width).toBe(12);
    expect(time.format(late.toISOString())).toBe('Nov 27 00:51');
    expect(time.format(early.toISOString())).toBe('Nov 26 02:09');
    expect(time.format('not a time')).toBe('-');
  });
});
