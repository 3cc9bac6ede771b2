import fc from 'fast-check';
import {describe, expect, it} from 'vitest';
import {painter} from '../../src/lib/output.js';
import {type Column, renderTable} from '../../src/ui/table.js';
import {relativeTime} from '../../src/ui/time.js';

interface Row {
  name: string;
  url: string;
  status: string;
}
const columns: Column<Row>[] = [
  {header: 'NAME', value: (r) => r.name},
  {header: 'URL', value: (r) => r.url, flexible: true, minWidth: 10},
  {header: 'STATUS', value: (r) => r.status, style: (r) => (r.status === 'failed' ? 'red' : 'green')},
];
const rows: Row[] = [
  {name: 'prod', url: 'https://hooks.example.com/a/very/long/path/that/does/not/fit', status: 'failed'},
  {name: 'staging', url: 'https://s.example.com/h', status: 'succeeded'},
];

describe('renderTable', () => {
  it('aligns columns under their headers when there is room, with whole values', () => {
    const [header, prod, staging] = renderTable(columns, rows).split('\n');
    expect(header!.indexOf('URL')).toBe(prod!.indexOf('https://hooks'));
    expect(header!.indexOf('STATUS')).toBe(prod!.indexOf('failed'));
    expect(header!.indexOf('STATUS')).toBe(staging!.indexOf('succeeded'));
    expect(prod).toContain(rows[0]!.url);
    expect(prod!.indexOf('failed') - prod!.indexOf(' failed')).toBe(1);
  });

  it('shortens flexible columns with … to fit the terminal, never the fixed ones', () => {
    const out = renderTable(columns, rows, {width: 50});
    for (const line of out.trimEnd().split('\n')) expect(Array.from(line).length).toBeLessThanOrEqual(50);
    expect(out).toContain('…');
    expect(out).toContain('succeeded');
    expect(out).toContain('staging');
  });

  it('never truncates below a flexible column minimum, and fits any width it can', () => {
    fc.assert(
      fc.property(fc.integer({min: 1, max: 200}), (width) => {
        const out = renderTable(columns, rows, {width});
        const longest = Math.max(
          ...out
            .trimEnd()
            .split('\n')
            .map((l) => Array.from(l).length),
        );
        const fixed = 'staging'.length + 'succeeded'.length + 10 + 4;
        expect(longest).toBeLessThanOrEqual(Math.max(width, fixed));
      }),
    );
  });

  it('paints styled cells, and removes control characters coming from data', () => {
    const out = renderTable(columns, [{name: 'evil\u001b[2J', url: 'x', status: 'failed'}], {
      paint: painter(true),
    });
    expect(out).toContain('\u001b[31mfailed');
    expect(out).not.toContain('\u001b[2J');
  });
});

describe('relativeTime', () => {
  const now = Date.parse('2026-03-20T12:00:00Z');
  it.each([
    ['2026-03-20T11:57:00Z', '3 minutes ago'],
    ['2026-03-20T11:59:55Z', 'just now'],
    ['2026-03-20T12:00:00Z', 'just now'],
    // A moment ahead (a retry due in 5 s) is ahead, never "just now".
    ['2026-03-20T12:00:05Z', 'in 5 seconds'],
    // Within the second a Date header is read to: made just now, not "in 1 second".
    ['2026-03-20T12:00:00.400Z', 'just now'],
    ['2026-03-20T12:00:01.600Z', 'in 2 seconds'],
    // A 30-day key made a moment ago.
    ['2026-04-19T11:59:59Z', 'in 30 days'],
    ['2026-04-19T11:00:00Z', 'in 30 days'],
    ['2026-03-19T12:00:00Z', '1 day ago'],
    // "Now" read from a Date header (whole seconds) a moment short of a day after: still a day, not 23 hours.
    ['2026-03-19T12:00:00.700Z', '1 day ago'],
    ['2026-03-20T10:00:00.500Z', '2 hours ago'],
    ['2026-03-20T11:00:02Z', '59 minutes ago'],
    ['2026-03-20T09:00:00Z', '3 hours ago'],
    ['2026-06-20T12:00:00Z', 'in 3 months'],
    ['2024-03-20T12:00:00Z', '2 years ago'],
  ])('%s reads as "%s"', (iso, text) => {
    expect(relativeTime(iso, now)).toBe(text);
  });

  it('shows a placeholder for missing or unreadable times', () => {
    expect(relativeTime(null, now)).toBe('-');
    expect(relativeTime('not a date', now, 'never')).toBe('never');
  });
});
