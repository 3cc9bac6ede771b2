// What `svc webhooks diagnose` prints for a person: a line for a healthy endpoint, and for one with issues each
// issue with its evidence, the fix and the command that reproduces it.
import type {Paint} from '../lib/output.js';
import type {DiagnoseReport, EndpointDiagnosis} from '../services/webhooks/diagnose.js';
import type {DiagnosisIssue} from '../services/webhooks/diagnosis.js';
import {WEBHOOK_SECRET_ENV} from '../services/webhooks/verify.js';
import {sanitize} from './text.js';

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** A command as printed for the person: svc spelled as it was run. */
function spelled(command: string, svc: string): string {
  return command.startsWith('svc ') ? `${svc}${command.slice(3)}` : command;
}

export function healthyLine(d: EndpointDiagnosis): string {
  const seen =
    d.attempts === 0 ? 'no attempts yet' : `none of its ${plural(d.attempts, 'recent attempt')} failed`;
  return `${d.endpoint_id} is healthy: ${seen}.`;
}

/** One issue's lines, numbered; the first line is the cause. */
export function issueLines(issue: DiagnosisIssue, n: number, paint: Paint, svc = 'svc'): string[] {
  const row = (label: string, text: string) => `   ${paint('gray', label.padEnd(10))} ${text}`;
  return [
    `${paint('red', `${n}.`)} ${paint('bold', issue.title)} ${paint('gray', `[${issue.cause}]`)}`,
    row('evidence', sanitize(issue.evidence)),
    row('deliveries', issue.examples.join(', ') + (issue.deliveries > issue.examples.length ? ', …' : '')),
    row('fix', issue.fix),
    row('reproduce', sanitize(spelled(issue.reproduce, svc))),
  ];
}

function endpointLines(d: EndpointDiagnosis, paint: Paint, svc: string): string[] {
  if (d.issues.length === 0) return [`${paint('green', '✓')} ${healthyLine(d)}`];
  const lines = [
    `${paint('red', '✗')} ${paint('bold', d.endpoint_id)}  ${sanitize(d.url)}  ${plural(d.issues.length, 'issue')} in ${plural(d.attempts, 'attempt')} (${d.failed} failed)`,
  ];
  if (d.evidence === 'deliveries')
    lines.push(
      paint(
        'yellow',
        '   From each delivery’s last answer only: attempt detail (answers, timing) comes from the emulator.',
      ),
    );
  d.issues.forEach((issue, i) => {
    lines.push('', ...issueLines(issue, i + 1, paint, svc));
  });
  return lines;
}

export function renderDiagnoseReport(report: DiagnoseReport, paint: Paint, svc = 'svc'): string {
  if (report.endpoints.length === 0) return 'No webhook endpoints to diagnose.\n';
  const blocks = report.endpoints.map((d) => endpointLines(d, paint, svc).join('\n'));
  const text = blocks.join('\n\n');
  if (report.issues === 0) return `${text}\n`;
  const env = `The reproduce commands read the endpoint’s signing secret from ${WEBHOOK_SECRET_ENV}.`;
  return `${text}\n\n${paint('gray', env)}\n`;
}
