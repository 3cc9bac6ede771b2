// `svc webhooks test-receiver --junit FILE`: the report as JUnit XML, the format CI systems read (Jenkins, GitLab,
// GitHub's test reporters): one <testcase> per check, classname svc.test-receiver.<group>, a failed check's expected
// answer, what came back and the fix in its <failure>. No times and no timestamps, so two runs against the same
// receiver write the same bytes: the race and the burst say their outcome without the figures that vary from run
// to run (steadyGot), which the text output and --json keep.
import {writeOwnerOnly} from '../../lib/safe-write.js';
import {xmlText} from '../../lib/xml.js';
import {steadyGot} from './load-checks.js';
import type {CheckVerdict} from './receiver-checks.js';
import type {ReceiverReport} from './test-receiver.js';

const SUITE = 'svc.test-receiver';

const attr = (value: string) => `"${xmlText(value, true)}"`;

function testcase(check: CheckVerdict, report: ReceiverReport): string {
  const got = steadyGot(check, report);
  const open = `    <testcase classname=${attr(`${SUITE}.${check.group}`)} name=${attr(`${check.id}: ${check.title}`)}`;
  if (check.status === 'pass') return `${open}/>`;
  if (check.status === 'skip') return `${open}>\n      <skipped message=${attr(got)}/>\n    </testcase>`;
  const detail = [`expected: ${check.expected}`, `got: ${got}`, `fix: ${check.fix}`].join('\n');
  return [
    `${open}>`,
    `      <failure message=${attr(`expected ${check.expected}; got ${got}`)} type=${attr(check.id)}>${xmlText(detail)}</failure>`,
    '    </testcase>',
  ].join('\n');
}

/** The report as a JUnit XML document: the same report gives the same bytes. */
export function junitXml(report: ReceiverReport): string {
  const counts = `tests="${report.checks.length}" failures="${report.failed}" errors="0" skipped="${report.skipped}"`;
  const properties = [
    `      <property name="url" value=${attr(report.url)}/>`,
    ...(report.diagnosis
      ? [
          `      <property name="diagnosis" value=${attr(report.diagnosis.code)}/>`,
          `      <property name="diagnosis.message" value=${attr(report.diagnosis.message)}/>`,
          `      <property name="diagnosis.next" value=${attr(report.diagnosis.next)}/>`,
        ]
      : []),
  ];
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name=${attr('svc webhooks test-receiver')} ${counts}>`,
    `  <testsuite name=${attr(SUITE)} ${counts}>`,
    '    <properties>',
    ...properties,
    '    </properties>',
    ...report.checks.map((check) => testcase(check, report)),
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

/** Writes the JUnit report owner-only, whole or not at all, never through a link (lib/safe-write.ts). */
export function writeJunitReport(path: string, report: ReceiverReport): void {
  writeOwnerOnly(path, junitXml(report), {label: '--junit', code: 'junit_write_failed'});
}
