// The browser's rules without a terminal: filters, a selection that follows its row, scrolling, refresh back-off.
import fc from 'fast-check';
import {describe, expect, it} from 'vitest';
import {keepSelection, LIVE_BACKOFF, matchesFilter, nextDelay, scrollTop} from '../../../src/ui/tui/model.js';

describe('keepSelection', () => {
  it('follows the selected id wherever it moved, and falls back to its old place when it is gone', () => {
    expect(keepSelection(['n1', 'n2', 'a', 'b'], 'b', 1)).toBe('b');
    expect(keepSelection(['a', 'c'], 'b', 1)).toBe('c');
    expect(keepSelection(['a'], 'b', 5)).toBe('a');
    expect(keepSelection(['a', 'b'], undefined, 0)).toBe('a');
  });

  it('always names a row of the list when the list has rows', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string(), {minLength: 1}),
        fc.option(fc.string()),
        fc.nat(),
        (ids, sel, i) => {
          expect(ids).toContain(keepSelection(ids, sel ?? undefined, i));
        },
      ),
    );
  });
});

describe('scrollTop', () => {
  it('keeps the selected row inside the window, moving as little as possible', () => {
    fc.assert(
      fc.property(
        fc.nat(200),
        fc.integer({min: 1, max: 30}),
        fc.nat(200),
        fc.nat(200),
        (total, height, sel, top) => {
          const selected = total === 0 ? 0 : sel % total;
          const t = scrollTop(selected, height, top, total);
          if (total > height) {
            expect(selected).toBeGreaterThanOrEqual(t);
            expect(selected).toBeLessThan(t + height);
            expect(t + height).toBeLessThanOrEqual(total);
          } else expect(t).toBe(0);
        },
      ),
    );
    expect(scrollTop(5, 10, 3, 50)).toBe(3);
  });
});

describe('matchesFilter', () => {
  it('needs every word somewhere in the fields, whatever the case', () => {
    expect(matchesFilter(['sandbox.error', 'failed', 'evt_ABC'], 'ERROR fail')).toBe(true);
    expect(matchesFilter(['sandbox.error', 'failed'], 'error pending')).toBe(false);
    expect(matchesFilter(['x', null], '  ')).toBe(true);
  });
});

describe('nextDelay', () => {
  it('is short after a change, grows to its cap while nothing changes, and backs off further on errors', () => {
    let d = LIVE_BACKOFF.minMs;
    for (let i = 0; i < 20; i++) d = nextDelay(d, 'same');
    expect(d).toBe(LIVE_BACKOFF.idleMaxMs);
    expect(nextDelay(d, 'changed')).toBe(LIVE_BACKOFF.minMs);
    let e = LIVE_BACKOFF.minMs;
    const seen: number[] = [];
    for (let i = 0; i < 6; i++) {
      e = nextDelay(e, 'failed');
      seen.push(e);
    }
    expect(seen).toEqual([2_000, 4_000, 8_000, 15_000, 15_000, 15_000]);
  });
});
