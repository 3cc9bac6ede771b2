// What `svc webhooks test-receiver` prints for a person: one line per check as it is judged, what came back
// and what was expected under a failure with the fix, then the count.
import type {Paint} from '../lib/output.js';
import {
  type CheckVerdict,
  RECEIVER_CHECK_IDS,
  type ReceiverReport,
} from '../services/webhooks/test-receiver.js';
import {sanitize} from './text.js';

/** The ids' column: as wide as the longest id, so the titles line up. */
const ID_WIDTH = Math.max(...RECEIVER_CHECK_IDS.map((id) => id.length)) + 1;
const MARKS = {pass: ['green', '✓'], fail: ['red', '✗'], skip: ['yellow', '-']} as const;

export function renderVerdict(v: CheckVerdict, paint: Paint): string {
  const [style, mark] = MARKS[v.status];
  const lines = [`${paint(style, mark)} ${v.id.padEnd(ID_WIDTH)} ${v.title}`];
  if (v.status === 'fail') {
    lines.push(`    expected ${v.expected}; got ${sanitize(v.got)}`);
    lines.push(`    fix: ${v.fix}`);
  } else if (v.status === 'skip') {
    lines.push(`    ${sanitize(v.got)}`);
  }
  return lines.join('\n');
}

/**
 * The checks skipped for one reason, said once: "- 18 checks not sent: …" (a lone one keeps its own line).
 * Called with every skipped verdict at the end, so a receiver that is down is one line, not eighteen.
 */
export function renderSkipped(skipped: CheckVerdict[], paint: Paint): string[] {
  const byReason = new Map<string, CheckVerdict[]>();
  for (const v of skipped) byReason.set(v.got, [...(byReason.get(v.got) ?? []), v]);
  return [...byReason.entries()].map(([reason, group]) => {
    if (group.length === 1) return renderVerdict(group[0] as CheckVerdict, paint);
    const ids = group.map((v) => v.id).join(', ');
    return `${paint('yellow', MARKS.skip[1])} ${group.length} checks ${sanitize(reason)}\n    (${ids})`;
  });
}

/** The cause the verdicts share, once, with its next step unless a failed check's fix already said it. */
export function renderDiagnosis(r: ReceiverReport): string {
  const d = r.diagnosis;
  if (!d) return '';
  const said = r.checks.some((c) => c.status === 'fail' && c.fix.includes(d.next));
  return `\n${sanitize(d.message)}${said ? '' : `\nNext step: ${sanitize(d.next)}`}`;
}

export function renderSummary(r: ReceiverReport, paint: Paint): string {
  const parts = [paint(r.failed === 0 ? 'green' : 'red', `${r.passed} passed, ${r.failed} failed`)];
  if (r.skipped > 0) parts.push(`${r.skipped} skipped`);
  return `\n${parts.join(', ')} (${sanitize(r.url)})`;
}
