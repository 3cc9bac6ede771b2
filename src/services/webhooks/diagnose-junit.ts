// `svc webhooks diagnose --junit FILE`: the diagnosis as JUnit XML for CI. One <testsuite> per endpoint, one failed
// <testcase> per issue (named after its cause, so a name means the same thing run after run), and one passing
// `healthy` case for an endpoint without issues. No times and no timestamps: the same attempts give the same bytes.
import {writeOwnerOnly} from '../../lib/safe-write.js';
import {xmlText} from '../../lib/xml.js';
import type {DiagnoseReport, EndpointDiagnosis} from './diagnose.js';
import {DIAGNOSIS_CAUSES, type DiagnosisIssue} from './diagnosis.js';

const SUITE = 'svc.webhooks.diagnose';
const attr = (value: string) => `"${xmlText(value, true)}"`;
const ORDER = new Map(DIAGNOSIS_CAUSES.map((c, i) => [c, i]));

function issueCase(endpoint: EndpointDiagnosis, issue: DiagnosisIssue): string {
  const detail = [
    issue.title,
    `evidence: ${issue.evidence}`,
    `event types: ${issue.event_types.join(', ')}`,
    `deliveries: ${issue.examples.join(', ')}`,
    `fix: ${issue.fix}`,
    `reproduce: ${issue.reproduce}`,
  ].join('\n');
  return [
    `    <testcase classname=${attr(`${SUITE}.${endpoint.endpoint_id}`)} name=${attr(issue.cause)}>`,
    `      <failure message=${attr(issue.title)} type=${attr(issue.cause)}>${xmlText(detail)}</failure>`,
    '    </testcase>',
  ].join('\n');
}

function suite(endpoint: EndpointDiagnosis): string {
  // In the causes' fixed order, not by count: a case keeps its place from one run to the next.
  const issues = [...endpoint.issues].sort(
    (a, b) => (ORDER.get(a.cause) as number) - (ORDER.get(b.cause) as number),
  );
  const cases =
    issues.length === 0
      ? [`    <testcase classname=${attr(`${SUITE}.${endpoint.endpoint_id}`)} name="healthy"/>`]
      : issues.map((issue) => issueCase(endpoint, issue));
  return [
    `  <testsuite name=${attr(endpoint.endpoint_id)} tests="${cases.length}" failures="${issues.length}" errors="0" skipped="0">`,
    '    <properties>',
    `      <property name="url" value=${attr(endpoint.url)}/>`,
    `      <property name="evidence" value=${attr(endpoint.evidence)}/>`,
    '    </properties>',
    ...cases,
    '  </testsuite>',
  ].join('\n');
}

/** The report as a JUnit XML document: the same report gives the same bytes. */
export function diagnosisJunitXml(report: DiagnoseReport): string {
  const tests = report.endpoints.reduce((n, e) => n + Math.max(e.issues.length, 1), 0);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name=${attr('svc webhooks diagnose')} tests="${tests}" failures="${report.issues}" errors="0" skipped="0">`,
    ...report.endpoints.map(suite),
    '</testsuites>',
    '',
  ].join('\n');
}

/** Writes the JUnit report owner-only, whole or not at all, never through a link (lib/safe-write.ts). */
export function writeDiagnosisJunit(path: string, report: DiagnoseReport): void {
  writeOwnerOnly(path, diagnosisJunitXml(report), {label: '--junit', code: 'junit_write_failed'});
}
