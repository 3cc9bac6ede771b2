// What `svc scenario run` prints for a person: each scenario with a line per expectation (✓ or ✗ with what
// happened instead), a step that could not be done, what a failing scenario's receivers wrote last, and a total.
import type {Paint} from '../lib/output.js';
import type {ScenarioReport} from '../services/scenario/run.js';
import type {ScenarioResult} from '../scenario/types.js';
import {sanitize} from './text.js';

function scenarioLines(s: ScenarioResult, paint: Paint): string[] {
  const mark = s.passed ? paint('green', '✓') : paint('red', '✗');
  const lines = [`${mark} ${paint('bold', sanitize(s.name))}  ${paint('gray', sanitize(s.file))}`];
  for (const e of s.expectations) {
    if (e.passed) lines.push(`  ${paint('green', '✓')} ${sanitize(e.name)}`);
    else {
      lines.push(`  ${paint('red', '✗')} ${sanitize(e.name)} ${paint('gray', `(line ${e.line})`)}`);
      lines.push(`    ${paint('gray', 'got')} ${sanitize(e.got ?? '')}`);
    }
  }
  if (s.error) {
    const where = s.error.line ? ` ${paint('gray', `(line ${s.error.line})`)}` : '';
    const [first, ...rest] = s.error.message.split('\n');
    lines.push(
      `  ${paint('red', '✗')} ${sanitize(first ?? '')}${where}`,
      ...rest.map((l) => `    ${sanitize(l)}`),
    );
  }
  for (const [name, output] of Object.entries(s.receiver_output ?? {})) {
    lines.push(
      `  ${paint('gray', `receiver ${name}, last output:`)}`,
      ...output.split('\n').map((l) => `    ${sanitize(l)}`),
    );
  }
  return lines;
}

export function renderScenarioReport(report: ScenarioReport, paint: Paint): string {
  const total = report.passed + report.failed;
  const summary =
    report.failed === 0
      ? paint('green', `${total === 1 ? 'The scenario' : `All ${total} scenarios`} passed.`)
      : paint('red', `${report.failed} of ${total} scenario${total === 1 ? '' : 's'} failed.`);
  return `${[...report.scenarios.flatMap((s) => scenarioLines(s, paint)), '', summary].join('\n')}\n`;
}
