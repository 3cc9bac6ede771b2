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

/**
 * How far "now" may run behind: an API's time is read from its `Date` header, to the whole second. A day to the
 * second before such a "now" reads "1 day ago", not "23 hours ago" (as right after a clock moved by a day).
 */
const NOW_PRECISION_S = 1;

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
  // Behind counts whole units, the second "now" may be short of included.
  const reach = seconds > 0 ? abs : abs + NOW_PRECISION_S;
  for (const [unit, size, threshold] of UNITS) {
    if (reach >= threshold) {
      // Ahead rounds (a 30-day key made a moment ago expires "in 30 days").
      const count = seconds > 0 ? Math.round(abs / size) : Math.floor(reach / size);
      return format.format(seconds < 0 ? -count : count, unit);
    }
  }
  return empty;
}
