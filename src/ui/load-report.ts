// What `svc webhooks test-receiver --race/--burst` print for a person below the verdicts: how the race was sent
// and what it could not see, and the burst's answer times against the attempt budget.
import {describeBurst, describeTimes} from '../services/webhooks/burst.js';
import {RACE_CHECK_ID} from '../services/webhooks/race.js';
import type {ReceiverReport} from '../services/webhooks/test-receiver.js';
import {sanitize} from './text.js';

export function renderLoadDetails(r: ReceiverReport): string[] {
  const lines: string[] = [];
  if (r.race && r.race.rounds > 0) {
    const race = r.race;
    lines.push(
      `\nrace: ${race.rounds} rounds of ${race.attempts} attempts at once (the requests of a round completed within ${race.max_spread_ms} ms of each other)` +
        (race.probe ? `, probe ${sanitize(race.probe)}` : ''),
    );
    const verdict = r.checks.find((c) => c.id === RACE_CHECK_ID);
    if (race.not_seen && verdict?.status === 'pass') lines.push(`  seen: ${sanitize(verdict.got)}`);
    if (race.not_seen) lines.push(`  not seen: ${race.not_seen}`);
  }
  if (r.burst) {
    const b = r.burst;
    lines.push(
      `${lines.length === 0 ? '\n' : ''}burst: ${describeBurst(b)}: ${describeTimes(b)}${b.slow_ack ? ' (slow ack)' : ''}`,
    );
  }
  return lines;
}
