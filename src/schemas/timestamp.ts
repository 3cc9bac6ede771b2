// The timestamps of the wire records, and the one reading of a time given as input (a clock set, a shaped
// event's expires_at): ISO 8601 with its zone, on a date that exists.
import {z} from 'zod';

// Parsed as any string (a client must not break on a finer timestamp), documented as date-time.
export const timestamp = z.string().meta({format: 'date-time'});
export const nullableTimestamp = timestamp.nullable();

const ISO_TIME =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):(\d{2}))$/;
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/**
 * An ISO 8601 time with its zone, or why it is none. Every field is checked against the calendar: JavaScript
 * would read 2030-02-30 as March 2 and 24:00 as the next day, which is not the time that was asked for.
 */
export function parseIsoTime(text: string): Date | string {
  const m = ISO_TIME.exec(text);
  if (!m) return 'must be an ISO 8601 time like 2030-01-01T00:00:00Z';
  const [year, month, day, hour, minute, second, zoneHour, zoneMinute] = m
    .slice(1)
    .map((part) => (part === undefined ? 0 : Number(part))) as number[] as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const date = (text.split('T')[0] as string).slice(0, 10);
  if (month < 1 || month > 12) return `must be a date that exists: ${date} has no month ${m[2]}`;
  const days = month === 2 ? (leapYear(year) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;
  if (day < 1 || day > days) {
    return `must be a date that exists: ${MONTHS[month - 1]} ${year} has ${days} days, so ${date} is none`;
  }
  if (hour > 23 || minute > 59 || second > 59) {
    return 'must be a time that exists: hours run 00 to 23, minutes and seconds 00 to 59';
  }
  if (zoneHour > 23 || zoneMinute > 59) return 'must have a zone offset that exists, like +02:00';
  const to = new Date(text);
  if (!Number.isFinite(to.getTime())) return 'must be an ISO 8601 time like 2030-01-01T00:00:00Z';
  return to;
}

function leapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}
