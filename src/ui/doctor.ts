// What `svc doctor` prints for a person: each lane with its checks, the fix under each warn and fail, the count.
import type {DoctorReport} from '../services/doctor/index.js';
import {DOCTOR_LANES} from '../services/doctor/check.js';
import {sanitize} from './text.js';

const MARK = {ok: 'ok  ', warn: 'WARN', fail: 'FAIL'} as const;

export function renderDoctor(r: DoctorReport): string {
  const lines: string[] = [];
  for (const lane of DOCTOR_LANES) {
    const checks = r.checks.filter((c) => c.lane === lane);
    if (checks.length === 0) continue;
    lines.push(lane);
    for (const c of checks) {
      lines.push(`  ${MARK[c.status]}  ${c.id}: ${sanitize(c.detail)}`);
      if (c.fix && c.status !== 'ok') lines.push(`        fix: ${sanitize(c.fix)}`);
    }
    lines.push('');
  }
  lines.push(`${r.ok} ok, ${r.warn} warning${r.warn === 1 ? '' : 's'}, ${r.fail} failed`);
  return `${lines.join('\n')}\n`;
}
