// "3 minutes ago", "in 30 days": how a person reads timestamps in a table.
const DAY = 24 * 3600;

/** [unit, its length in seconds, the smallest distance shown in it]. Days run to two months so a 30-day key reads "in 30 days". */
const UNITS: [Intl.RelativeTimeFormatUnit, number, number][] = [
  ['year', 365 * DAY, 365 * DAY],
  ['month', 30 * DAY, 60 * DAY],
  ['day', DAY, DAY],
  ['hour', 3600, 3600],
  ['minute', 60, 60],
  ['second', 1, 0],
];

export function relativeTime(iso: string | null | undefined, nowMs: number, empty = '-'): string {
  if (!iso) return empty;
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return empty;
  const seconds = (at - nowMs) / 1000;
  const abs = Math.abs(seconds);
  const format = new Intl.RelativeTimeFormat('en', {numeric: 'always'});
  // A moment ago is "just now"; a moment ahead is still ahead ("in 5 seconds"), but not within the second a
  // server's clock is read to (a Date header is whole seconds): not "in 1 second" for what was made just now.
  if (abs < 10) return seconds < 1 ? 'just now' : format.format(Math.round(seconds), 'second');
  for (const [unit, size, threshold] of UNITS) {
    if (abs >= threshold) {
      // Ahead rounds (a 30-day key made a moment ago expires "in 30 days"); behind counts whole units.
      const count = seconds > 0 ? Math.round(abs / size) : Math.floor(abs / size);
      return format.format(seconds < 0 ? -count : count, unit);
    }
  }
  return empty;
}
