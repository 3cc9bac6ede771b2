// Text from the API is shown in a terminal: control characters could move the cursor or fake output, and
// bidi controls could reorder a row. The policy is the one every surface uses (src/definitions.ts).
import {displayText} from '../definitions.js';

/** One line of outside text, safe for a terminal: controls and invisible characters shown as `\uXXXX`. */
export function sanitize(text: string): string {
  return displayText(text);
}

/** Several lines of outside text (an event body, a receiver's answer), each made safe the same way. */
export function sanitizeLines(text: string): string {
  return displayText(text, {multiline: true});
}

/** Columns a string takes in a terminal. */
export type Measure = (text: string) => number;

const PLAIN = /^[\x20-\x7e]*$/;

/** Right for printable ASCII only; tables for people get `loadMeasure()` instead. */
export const codePointWidth: Measure = (text) => Array.from(text).length;

/**
 * Display width as terminals draw it (CJK and most emoji take two columns, combining marks none), by
 * string-width. Loaded on demand: it builds an Intl.Segmenter when imported, which a `--json` run never needs.
 */
export async function loadMeasure(): Promise<Measure> {
  const {default: stringWidth} = await import('string-width');
  return (text) => (PLAIN.test(text) ? text.length : stringWidth(text));
}

/** Shortens text to at most `width` columns with a trailing …, cutting between whole characters. */
export function truncate(text: string, width: number, measure: Measure = codePointWidth): string {
  if (width <= 0) return '';
  if (measure(text) <= width) return text;
  if (width === 1) return '…';
  const parts = PLAIN.test(text)
    ? Array.from(text)
    : Array.from(new Intl.Segmenter().segment(text), (s) => s.segment);
  let out = '';
  let used = 0;
  for (const part of parts) {
    const w = measure(part);
    if (used + w > width - 1) break;
    out += part;
    used += w;
  }
  return `${out}…`;
}

export function displayWidth(text: string, measure: Measure = codePointWidth): number {
  return measure(text);
}
