// The system lane: the Node.js that runs svc.

import {check, type DoctorCheck} from './check.js';

/**
 * End of life of each Node.js major line (the Node.js release schedule): even lines get about 30 months of
 * support, odd lines about 8. After the date a line gets no security fixes.
 */
export const NODE_END_OF_LIFE: Readonly<Record<number, string>> = Object.freeze({
  18: '2025-04-30',
  19: '2023-06-01',
  20: '2026-04-30',
  21: '2024-06-01',
  22: '2027-04-30',
  23: '2025-06-01',
  24: '2028-04-30',
  25: '2026-06-01',
  26: '2029-04-30',
});

/** The oldest Node.js svc runs on (package.json `engines`). */
export const NODE_MINIMUM = '20.18.0';

function parse(version: string): [number, number, number] {
  const [major = 0, minor = 0, patch = 0] = version.replace(/^v/, '').split('.').map(Number);
  return [major, minor, patch];
}

function older(a: [number, number, number], b: [number, number, number]): boolean {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return (a[i] as number) < (b[i] as number);
  return false;
}

export function checkNodeVersion(input: {version: string; now: Date}): DoctorCheck {
  const version = parse(input.version);
  const [major] = version;
  const newest = Math.max(...Object.keys(NODE_END_OF_LIFE).map(Number));
  const supported = Object.entries(NODE_END_OF_LIFE)
    .filter(([line, date]) => Number(line) % 2 === 0 && new Date(`${date}T00:00:00Z`) > input.now)
    .map(([line]) => line);
  const upgrade = `Install a supported Node.js line (${supported.join(', ') || 'the current LTS'}), e.g. with nvm or fnm`;
  if (older(version, parse(NODE_MINIMUM))) {
    return check(
      'node',
      'system',
      'fail',
      `Node.js ${input.version} is older than svc needs (${NODE_MINIMUM})`,
      upgrade,
    );
  }
  const eol = NODE_END_OF_LIFE[major];
  if (eol && new Date(`${eol}T00:00:00Z`) <= input.now) {
    return check(
      'node',
      'system',
      'warn',
      `Node.js ${input.version}: the ${major}.x line reached its end of life on ${eol} and gets no security fixes`,
      upgrade,
    );
  }
  const until = eol ? `, supported until ${eol}` : major > newest ? ', newer than the lines svc knows' : '';
  return check('node', 'system', 'ok', `Node.js ${input.version}${until}`);
}
