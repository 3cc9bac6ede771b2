// `svc scenario run --junit FILE`: the run as JUnit XML for CI. One <testsuite> per scenario file, one
// <testcase> per expectation (named as the report names it), and a step that could not be done as an <error>.
// No times, ids or addresses: the same scenarios against the same receivers give the same bytes, run after run.
import {writeOwnerOnly} from '../../lib/safe-write.js';
import {xmlText} from '../../lib/xml.js';
import type {ScenarioResult} from '../../scenario/types.js';
import type {ScenarioReport} from './run.js';

const attr = (value: string) => `"${xmlText(value, true)}"`;

function suite(s: ScenarioResult): string {
  const classname = attr(`svc.scenario.${s.name}`);
  const cases = s.expectations.map((e) =>
    e.passed
      ? `    <testcase classname=${classname} name=${attr(e.name)}/>`
      : [
          `    <testcase classname=${classname} name=${attr(e.name)}>`,
          `      <failure message=${attr(e.got ?? 'failed')} type="expectation">${xmlText(`${s.file}:${e.line}: ${e.name}\ngot: ${e.got ?? ''}`)}</failure>`,
          '    </testcase>',
        ].join('\n'),
  );
  if (s.error) {
    const where = s.error.line ? `${s.file}:${s.error.line}` : s.file;
    cases.push(
      [
        `    <testcase classname=${classname} name=${attr(s.error.step < 0 ? 'receivers start' : `step ${s.error.step + 1}`)}>`,
        `      <error message=${attr(s.error.message.split('\n')[0] ?? '')} type="step">${xmlText(`${where}: ${s.error.message}`)}</error>`,
        '    </testcase>',
      ].join('\n'),
    );
  }
  const failures = s.expectations.filter((e) => !e.passed).length;
  return [
    `  <testsuite name=${attr(s.name)} tests="${cases.length}" failures="${failures}" errors="${s.error ? 1 : 0}" skipped="0">`,
    '    <properties>',
    `      <property name="file" value=${attr(s.file)}/>`,
    '    </properties>',
    ...cases,
    '  </testsuite>',
  ].join('\n');
}

/** The report as a JUnit XML document: the same outcomes give the same bytes. */
export function scenarioJunitXml(report: ScenarioReport): string {
  const count = (f: (s: ScenarioResult) => number) => report.scenarios.reduce((n, s) => n + f(s), 0);
  const tests = count((s) => s.expectations.length + (s.error ? 1 : 0));
  const failures = count((s) => s.expectations.filter((e) => !e.passed).length);
  const errors = count((s) => (s.error ? 1 : 0));
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="svc scenario run" tests="${tests}" failures="${failures}" errors="${errors}" skipped="0">`,
    ...report.scenarios.map(suite),
    '</testsuites>',
    '',
  ].join('\n');
}

/** Writes the JUnit report owner-only, whole or not at all, never through a link (lib/safe-write.ts). */
export function writeScenarioJunit(path: string, report: ScenarioReport): void {
  writeOwnerOnly(path, scenarioJunitXml(report), {label: '--junit', code: 'junit_write_failed'});
}
