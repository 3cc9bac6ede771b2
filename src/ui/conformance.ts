// One verdict per conformance check, for people, and the count at the end.
import type {ConformanceReport, RateLimitEffect} from '../services/conformance/index.js';

const MARK = {pass: 'PASS', fail: 'FAIL', skip: 'SKIP'} as const;

export function renderConformance(r: ConformanceReport & {rate_limit?: RateLimitEffect}): string {
  const lines = [`Checking ${r.api_url} against the OpenAPI document of svc`, ''];
  for (const c of r.checks) {
    lines.push(`${MARK[c.status]}  ${c.title}  [${c.id}]`);
    if (c.status !== 'pass') lines.push(`      expected: ${c.expected}`, `      got:      ${c.got}`);
  }
  const skipped = r.checks.length - r.passed - r.failed;
  lines.push('', `${r.passed} passed, ${r.failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
  if (r.rate_limit) lines.push(`Rate limit: ${r.rate_limit.summary}`);
  return `${lines.join('\n')}\n`;
}
