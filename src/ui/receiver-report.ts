// What `svc webhooks test-receiver` prints for a person: one line per check as it is judged, what came back
// and what was expected under a failure with the fix, then the count.
import type {Paint} from '../lib/output.js';
import type {CheckVerdict, ReceiverReport} from '../services/webhooks/test-receiver.js';
import {sanitize} from './text.js';

const MARKS = {pass: ['green', '✓'], fail: ['red', '✗'], skip: ['yellow', '-']} as const;

export function renderVerdict(v: CheckVerdict, paint: Paint): string {
  const [style, mark] = MARKS[v.status];
  const lines = [`${paint(style, mark)} ${v.id.padEnd(24)} ${v.title}`];
  if (v.status === 'fail') {
    lines.push(`    expected ${v.expected}; got ${sanitize(v.got)}`);
    lines.push(`    fix: ${v.fix}`);
  } else if (v.status === 'skip') {
    lines.push(`    ${sanitize(v.got)}`);
  }
  return lines.join('\n');
}

export function renderSummary(r: ReceiverReport, paint: Paint): string {
  const parts = [paint(r.failed === 0 ? 'green' : 'red', `${r.passed} passed, ${r.failed} failed`)];
  if (r.skipped > 0) parts.push(`${r.skipped} skipped`);
  return `\n${parts.join(', ')} (${sanitize(r.url)})`;
}
