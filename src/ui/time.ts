// "3 minutes ago", "in 29 days": how a person reads timestamps in a table.
const DAY = 24 * 3600;

/** [unit, its length in seconds, the smallest distance shown in it]. Days run to two months so a 30-day key reads "in 29 days". */
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
  // A moment ago is "just now"; a moment ahead is still ahead ("in 5 seconds"), never "just now".
  if (abs < 10) return seconds <= 0 ? 'just now' : format.format(Math.ceil(seconds), 'second');
  for (const [unit, size, threshold] of UNITS) {
    if (abs >= threshold) {
      const count = Math.floor(abs / size);
      return format.format(seconds < 0 ? -count : count, unit);
    }
  }
  return empty;
}
