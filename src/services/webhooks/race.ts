// `svc webhooks test-receiver --race [N]`: the same event (one event id, one delivery id, each attempt correctly
// signed) as N attempts at once, as when a retry overtakes a slow first answer or two workers deliver after a lease.
// Every connection is opened first, every request written but for its last byte, and the last bytes then written
// in one loop, so the receiver reads the requests complete within a millisecond of each other. A dedupe that
// checks for the event and records it later lets them all through. With a probe (docs/webhooks.md: `GET
// PROBE?event_id=…` → `{"applied": <count>}`) the race sees a side effect applied twice; without one it says what
// the answers show and what they cannot.
import {RACE_CHECK} from '../../definitions.js';
import {newId} from '../../ids.js';
import {readProbe} from '../../probe.js';
import {usageError} from '../../lib/errors.js';
import {type PostedAnswer, parseReceiverUrl} from './post-delivery.js';
import {raceRound, type Round} from './race-round.js';
import type {CheckVerdict} from './receiver-checks.js';

export const RACE_CHECK_ID = 'race';

export interface RacePlan {
  /** Attempts of one event sent at once. */
  attempts: number;
  probe?: URL;
}

/** How the racing attempts of one round were answered, measured against a repeat sent once they were all in. */
export type AnswerPattern = 'told_apart' | 'all_as_new' | 'all_alike';

export interface RaceReport {
  attempts: number;
  rounds: number;
  probe: string | null;
  /** The widest gap, in one round, between the first and the last attempt's final byte written. */
  max_spread_ms: number;
  /** With a probe: each round whose event was applied more than once. */
  applied_more_than_once: {event_id: string; applied: number}[];
  /** With a probe: events an attempt was answered 2xx for that the probe says were never applied. */
  never_applied: string[];
  /** Attempts answered with anything but a 2xx within the budget (the service would retry them). */
  not_accepted: number;
  /**
   * told_apart: the attempts of a round got different answers; all_as_new: the same answer, unlike the one a
   * repeat got afterwards (each attempt was answered as a first delivery); all_alike: every answer the same.
   */
  answer_patterns: Record<AnswerPattern, number>;
  /** What this run could not see, said plainly; null when nothing was left unseen. */
  not_seen: string | null;
}

/** What the command hands over: the attempts (`--race [N]`) and the probe's address (`--probe URL`). */
export function planRace(attempts: number | undefined, probe: string | undefined): RacePlan | undefined {
  if (attempts === undefined) {
    if (probe !== undefined) throw usageError('--probe is read by the race check: add --race.');
    return undefined;
  }
  if (!Number.isInteger(attempts) || attempts < 2 || attempts > RACE_CHECK.maxAttempts) {
    throw usageError(`--race takes 2 to ${RACE_CHECK.maxAttempts} attempts, not ${attempts}.`, [
      `--race alone sends ${RACE_CHECK.defaultAttempts}.`,
    ]);
  }
  return {attempts, ...(probe === undefined ? {} : {probe: parseReceiverUrl(probe, '--probe')})};
}

export interface RaceContext {
  url: URL;
  secret: string;
  /** An answer in a few words, as every verdict of test-receiver says it. */
  describe(answer: PostedAnswer): string;
}

const PROBE_FAILED = 'not judged: the probe failed';
const PROBE_CONTRACT = 'GET PROBE?event_id=<id> answering 200 {"applied": <count>}';
const TITLE_PROBED = (n: number) =>
  `The same event sent as ${n} attempts at once, ${RACE_CHECK.rounds} times, is applied once and answered 2xx`;
const TITLE_UNPROBED = (n: number) =>
  `The same event sent as ${n} attempts at once, ${RACE_CHECK.rounds} times, is answered 2xx (applied once: needs --probe)`;
const FIX_ATOMIC =
  'Make the dedupe atomic: record the event id under a unique constraint first (INSERT … ON CONFLICT DO NOTHING, ' +
  'and act only when the row was inserted) or claim it with one atomic operation (SET NX), then do the work. A ' +
  'check followed later by an insert lets simultaneous attempts all pass, and ids kept in one process’s memory ' +
  'do not stop an attempt that another process receives.';
const FIX_ANSWER_2XX =
  'Answer 2xx to an attempt of an event another attempt is already handling: a unique-key conflict means the ' +
  'event is handled, not that it failed (any other answer is retried).';
const FIX_NEVER_APPLIED =
  'The probe counts an event once the receiver takes it on (the row inserted, the job queued): check that it ' +
  'reads the store the receiver writes, and that no event answered 2xx is dropped.';
export const RACE_NOT_SEEN =
  'Without --probe, whether an event’s side effect ran once or several times cannot be seen: the answers are ' +
  'all svc sees. Give --probe URL (docs/webhooks.md, "The probe contract").';

/** The race check: RACE_CHECK.rounds rounds, each one event sent as plan.attempts attempts at once. */
export async function runRace(
  ctx: RaceContext,
  plan: RacePlan,
): Promise<{verdict: CheckVerdict; report: RaceReport}> {
  const {Agent} = await import('undici');
  const probeAgent = new Agent({pipelining: 0});
  const title = plan.probe ? TITLE_PROBED(plan.attempts) : TITLE_UNPROBED(plan.attempts);
  const expected = plan.probe
    ? `every attempt answered 2xx and each event applied once (probe: ${PROBE_CONTRACT})`
    : 'every attempt answered 2xx';
  try {
    if (plan.probe) {
      const before = await readProbe(plan.probe, newId('event'), probeAgent);
      if (!('applied' in before) || before.applied !== 0) {
        const got =
          'applied' in before ? `{"applied": ${before.applied}} for an event never sent` : before.error;
        return {
          verdict: {
            id: RACE_CHECK_ID,
            group: 'delivery',
            title,
            status: 'skip',
            expected,
            got: `not sent: the probe at ${plan.probe.href} does not keep the contract (${PROBE_CONTRACT}, 0 for an event it never saw): ${got}`,
            fix: '',
          },
          report: reportOf(plan, []),
        };
      }
    }
    const rounds: Round[] = [];
    for (let i = 0; i < RACE_CHECK.rounds; i++) {
      const round = await raceRound(ctx, plan.attempts);
      if (plan.probe) {
        const read = await readProbe(plan.probe, round.eventId, probeAgent);
        if ('error' in read) {
          return {
            verdict: {
              id: RACE_CHECK_ID,
              group: 'delivery',
              title,
              status: 'skip',
              expected,
              got: `${PROBE_FAILED} in round ${i + 1} for ${round.eventId}: ${read.error}`,
              fix: '',
            },
            report: reportOf(plan, rounds),
          };
        }
        round.applied = read.applied;
      }
      rounds.push(round);
      // A receiver that cannot be reached, or lets an attempt wait out the budget, fails every round the same
      // way: once is enough to say so, and a hundred waits of the budget would say nothing more.
      if (round.answers.some((a) => a.status_code === null)) break;
    }
    const report = reportOf(plan, rounds);
    return {verdict: judgeRace(ctx, plan, rounds, report, title, expected), report};
  } finally {
    await probeAgent.destroy().catch(() => undefined);
  }
}

function reportOf(plan: RacePlan, rounds: Round[]): RaceReport {
  const patterns: Record<AnswerPattern, number> = {told_apart: 0, all_as_new: 0, all_alike: 0};
  for (const r of rounds) patterns[patternOf(r)]++;
  return {
    attempts: plan.attempts,
    rounds: rounds.length,
    probe: plan.probe?.href ?? null,
    max_spread_ms: round3(Math.max(0, ...rounds.map((r) => r.spreadMs))),
    applied_more_than_once: rounds
      .filter((r) => r.applied !== undefined && r.applied > 1)
      .map((r) => ({event_id: r.eventId, applied: r.applied as number})),
    never_applied: rounds
      .filter((r) => r.applied === 0 && r.answers.some((a) => a.accepted))
      .map((r) => r.eventId),
    not_accepted: rounds.reduce((n, r) => n + r.answers.filter((a) => !a.accepted).length, 0),
    answer_patterns: patterns,
    not_seen: plan.probe ? null : RACE_NOT_SEEN,
  };
}

/** What an answer is, for comparing answers: the status and the body as it came. */
const answerKey = (a: PostedAnswer) => `${a.status_code ?? a.error} ${a.response_body ?? ''}`;

function patternOf(r: Round): AnswerPattern {
  const keys = new Set(r.answers.map(answerKey));
  if (keys.size > 1) return 'told_apart';
  return keys.has(answerKey(r.repeat)) ? 'all_alike' : 'all_as_new';
}

function judgeRace(
  ctx: RaceContext,
  plan: RacePlan,
  rounds: Round[],
  report: RaceReport,
  title: string,
  expected: string,
): CheckVerdict {
  const verdict = (status: 'pass' | 'fail', got: string, fix = ''): CheckVerdict => ({
    id: RACE_CHECK_ID,
    group: 'delivery',
    title,
    status,
    expected,
    got,
    fix,
  });
  const n = plan.attempts;
  const within = `completed within ${report.max_spread_ms} ms of each other`;
  const doubled = report.applied_more_than_once;
  const first = doubled[0];
  if (first) {
    const round = rounds.find((r) => r.eventId === first.event_id) as Round;
    return verdict(
      'fail',
      `double application: ${first.event_id} applied ${first.applied} times by ${n} attempts ${within} ` +
        `(answered ${round.answers.map(ctx.describe).join(', ')}); ${doubled.length} of ${rounds.length} rounds ` +
        'applied their event more than once',
      FIX_ATOMIC,
    );
  }
  const refused = rounds.find((r) => r.answers.some((a) => !a.accepted));
  if (refused) {
    const unreachable = refused.answers.every((a) => a.status_code === null && !a.timed_out);
    return verdict(
      'fail',
      `${report.not_accepted} of ${rounds.length * n} attempts not answered 2xx; e.g. ${refused.eventId}: ` +
        refused.answers.map(ctx.describe).join(', '),
      unreachable ? 'Start the receiver (or correct the URL), then run this again.' : FIX_ANSWER_2XX,
    );
  }
  const dropped = report.never_applied[0];
  if (dropped) {
    return verdict(
      'fail',
      `${dropped} was answered 2xx but the probe says it was never applied (${report.never_applied.length} of ${rounds.length} rounds)`,
      FIX_NEVER_APPLIED,
    );
  }
  const all = `${rounds.length * n} of ${rounds.length * n} attempts answered 2xx, ${n} at a time, ${within}`;
  if (plan.probe) return verdict('pass', `each of ${rounds.length} events applied once; ${all}`);
  return verdict('pass', `${all}; ${patternSentence(ctx, rounds, report)}`);
}

/** What the answers alone say, for a run without a probe. */
function patternSentence(ctx: RaceContext, rounds: Round[], report: RaceReport): string {
  const p = report.answer_patterns;
  const asNew = rounds.find((r) => patternOf(r) === 'all_as_new');
  if (asNew) {
    return (
      `in ${p.all_as_new} of ${rounds.length} rounds every attempt got the answer of a first delivery ` +
      `(${ctx.describe(asNew.answers[0] as PostedAnswer)}) while a repeat sent afterwards got ` +
      `${ctx.describe(asNew.repeat)}: the receiver may have handled those events more than once`
    );
  }
  const apart = rounds.find((r) => patternOf(r) === 'told_apart');
  if (apart && p.told_apart === rounds.length) {
    return `in every round the attempts got different answers (${apart.answers.map(ctx.describe).join(', ')}): the receiver told them apart`;
  }
  return 'every attempt and the repeat after it got the same answer, which cannot tell a first delivery from a repeat';
}

const round3 = (ms: number) => Math.round(ms * 1000) / 1000;

/**
 * The race's verdict in words that stay the same from run to run against the same receiver: no event ids, no
 * counts of rounds, no times (a check-then-insert gate is hit in some rounds, not always the same number). The
 * JUnit report writes these; the text output and `--json` keep the figures.
 */
export function steadyRaceGot(verdict: CheckVerdict, report: RaceReport | undefined): string {
  if (verdict.status === 'skip') {
    return verdict.got.startsWith(PROBE_FAILED)
      ? `${PROBE_FAILED} (which round, and why: the text output)`
      : verdict.got;
  }
  if (!report) return verdict.got;
  const n = report.attempts;
  if (verdict.status === 'pass') {
    return report.probe
      ? `each event applied once and every attempt answered 2xx, ${n} at a time`
      : `every attempt answered 2xx, ${n} at a time`;
  }
  if (report.applied_more_than_once.length > 0) {
    return `double application: events applied more than once by ${n} attempts at once (the events, the counts and the rounds: the text output and --json)`;
  }
  if (report.not_accepted > 0)
    return `attempts not answered 2xx (which, and the answers: the text output and --json)`;
  if (report.never_applied.length > 0) return 'events answered 2xx that the probe says were never applied';
  return verdict.got;
}
