// What `svc emulator deliveries resend` prints for a person: how each resend went (the receiver's answer and the
// delivery's state after it), and for --failed how many, which, on which emulator, and progress between pages.
import {RESEND_FAILED_LIMIT} from '../definitions.js';
import type {ResendOutcome} from '../schemas/emulator.js';
import {attemptOutcome} from './delivery-detail.js';
import {sanitize} from './text.js';

/** "attempt 10 → 200, now succeeded": the resend's attempt, what came back, and where the delivery stands. */
export function resendOutcomeText(o: ResendOutcome): string {
  const state = o.status === 'succeeded' ? 'now succeeded' : `still ${o.status}`;
  return `attempt ${o.attempt} → ${sanitize(attemptOutcome(o))}, ${state}`;
}

/** "2 succeeded, 1 still failed" over the outcomes of a bulk resend (every one of them failed before). */
function tally(outcomes: readonly ResendOutcome[]): string {
  const succeeded = outcomes.filter((o) => o.status === 'succeeded').length;
  const still = outcomes.length - succeeded;
  return `${succeeded} succeeded${still > 0 ? `, ${still} still failed` : ''}`;
}

/** A progress line between pages of a bulk resend (stderr). */
export function renderResendProgress(outcomes: readonly ResendOutcome[], limit: number): string {
  return `Resent ${outcomes.length} so far (at most ${limit}): ${tally(outcomes)}…`;
}

export function renderResentFailed(result: {
  resent: number;
  outcomes: readonly ResendOutcome[];
  more: boolean;
  limit: number;
  api_url: string;
}): string {
  if (result.resent === 0)
    return `No failed delivery matched on the emulator at ${result.api_url}; nothing was resent.\n`;
  const n = result.resent === 1 ? '1 failed delivery' : `${result.resent} failed deliveries`;
  const lines = result.outcomes.map((o) => `  ${o.delivery_id}  ${resendOutcomeText(o)}\n`);
  const more = result.more
    ? `More failed deliveries match than --limit ${result.limit}; the next run starts again with the oldest still ` +
      `failed. Narrow it with --webhook or --since${
        result.limit < RESEND_FAILED_LIMIT.max
          ? `, or raise --limit (at most ${RESEND_FAILED_LIMIT.max})`
          : ''
      }.\n`
    : '';
  return `Resent ${n} on the emulator at ${result.api_url}, oldest first:\n${lines.join('')}${tally(result.outcomes)}.\n${more}`;
}
