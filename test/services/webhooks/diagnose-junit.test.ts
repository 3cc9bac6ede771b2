// The JUnit XML of `svc webhooks diagnose --junit`: a failing case per issue named after its cause, a passing
// `healthy` case for an endpoint without issues, cases in the causes' fixed order, and outside text escaped.
import {describe, expect, it} from 'vitest';
import {diagnosisJunitXml} from '../../../src/services/webhooks/diagnose-junit.js';
import type {DiagnoseReport} from '../../../src/services/webhooks/diagnose.js';
import {diagnose} from '../../../src/services/webhooks/diagnosis.js';

const hostile = 'http://127.0.0.1:3000/h?a=<b>&c="d"\u001b[31m';

function report(): DiagnoseReport {
  const attempts = [
    {statusCode: 500, body: 'x'},
    {statusCode: 413, body: 'too large'},
    {statusCode: 413, body: 'too large'},
  ].map((a, i) => ({
    deliveryId: `dlv_${i}`,
    eventType: 'sandbox.ready',
    attempt: 1,
    error: null,
    durationMs: 5,
    startedAt: null,
    ...a,
  }));
  const sick = {
    endpoint_id: 'we_sick',
    url: hostile,
    evidence: 'attempts' as const,
    ...diagnose({url: hostile, attempts}),
  };
  const well = {
    endpoint_id: 'we_well',
    url: 'https://ok.example',
    evidence: 'attempts' as const,
    attempts: 3,
    failed: 0,
    issues: [],
  };
  return {endpoints: [sick, well], issues: sick.issues.length};
}

describe('diagnosisJunitXml', () => {
  it('has a failing case per issue, in the causes’ order, and a healthy case', () => {
    const xml = diagnosisJunitXml(report());
    expect(xml).toContain(
      '<testsuites name="svc webhooks diagnose" tests="3" failures="2" errors="0" skipped="0">',
    );
    const names = [...xml.matchAll(/<testcase classname="([^"]+)" name="([^"]+)"/g)].map(
      (m) => `${m[1]} ${m[2]}`,
    );
    expect(names).toEqual([
      'svc.webhooks.diagnose.we_sick body-limit',
      'svc.webhooks.diagnose.we_sick server-error',
      'svc.webhooks.diagnose.we_well healthy',
    ]);
  });

  it('escapes outside text and drops what XML cannot hold', () => {
    const xml = diagnosisJunitXml(report());
    expect(xml).toContain('value="http://127.0.0.1:3000/h?a=&lt;b&gt;&amp;c=&quot;d&quot;\uFFFD[31m"');
    expect(xml).not.toContain('\u001b');
    expect(diagnosisJunitXml(report())).toBe(xml);
  });
});
