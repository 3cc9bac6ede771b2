// `svc webhooks test-receiver --burst RATE[:DURATION]`: a burst of distinct, correctly signed events sent on a
// fixed schedule (open model: delivery i leaves at i/RATE s whatever the receiver has answered so far, as the
// service's deliveries do), then the answer times' p50, p99 and max against the attempt budget. A p99 at or past
// SLOW_ACK_BUDGET_SHARE of the budget is a "slow ack": a receiver working before it answers queues each delivery
// behind the work of the ones before it. A fixed interval rather than Poisson arrivals: the same run sends the
// same schedule every time, so two runs differ only by the receiver.
import {setTimeout as sleep} from 'node:timers/promises';
import {performance} from 'node:perf_hooks';
import {BURST_CHECK, DELIVERY_TIMEOUT_MS, SLOW_ACK_BUDGET_SHARE} from '../../definitions.js';
import {newId} from '../../ids.js';
import {usageError} from '../../lib/errors.js';
import {parseDuration} from '../../schemas/duration.js';
import {sampleEvent} from '../../schemas/sample-event.js';
import {deliveryHeaders, type PostedAnswer, postDelivery} from './post-delivery.js';
import type {CheckVerdict} from './receiver-checks.js';

export const BURST_CHECK_ID = 'burst';
/** How the deliveries of a burst are spaced: evenly, one every 1/RATE s. */
export const BURST_ARRIVALS = 'fixed-interval';

export interface BurstPlan {
  ratePerSecond: number;
  durationMs: number;
  /** Deliveries sent: the rate times the duration. */
  count: number;
}

export interface BurstReport {
  arrivals: typeof BURST_ARRIVALS;
  rate_per_second: number;
  duration_ms: number;
  sent: number;
  /** Answered 2xx within the budget. */
  accepted: number;
  /** No answer within the budget. */
  timed_out: number;
  /** No answer at all (refused, reset). */
  unanswered: number;
  /** How many answers of each status came back. */
  statuses: Record<string, number>;
  /** Answer times of the deliveries that got an answer or timed out (a timeout counts as the budget). */
  p50_ms: number | null;
  p99_ms: number | null;
  max_ms: number | null;
  budget_ms: number;
  /** p99 at or past this is a slow ack. */
  slow_ack_at_ms: number;
  slow_ack: boolean;
  /** How far the sender itself fell behind its schedule (a busy machine); the schedule is what was meant. */
  max_send_lag_ms: number;
}

const SLOW_ACK_AT_MS = DELIVERY_TIMEOUT_MS * SLOW_ACK_BUDGET_SHARE;
const RATE = /^(\d+(?:\.\d+)?)(?:\/(s|m))?$/;
const EXAMPLE = '--burst 50/s:20s (RATE as N/s or N/m, DURATION as 20s or 1m)';
const FIX_SLOW =
  'Answer first, work later: answer 2xx as soon as the signature verifies and the event is recorded (or queued), ' +
  'and do the work after the answer, from a queue. Work done before the answer makes every delivery of a burst ' +
  'wait for the work of the ones before it, and past the budget the service counts the attempt as failed and ' +
  'sends it again.';
const FIX_REFUSED =
  'Answer 2xx to every genuine delivery under load too: a 429 or 503 is a failed attempt the service sends again, ' +
  'adding to the load.';

/** `RATE[:DURATION]` → the plan, within BURST_CHECK's bounds; anything else is a usage error with an example. */
export function planBurst(text: string | undefined): BurstPlan | undefined {
  if (text === undefined) return undefined;
  const [rateText = '', durationText, ...rest] = text.trim().split(':');
  const rate = RATE.exec(rateText.trim());
  if (!rate || rest.length > 0) {
    throw usageError(`--burst ${JSON.stringify(text)} is not RATE[:DURATION]`, [`Example: ${EXAMPLE}`]);
  }
  const ratePerSecond = Number(rate[1]) / (rate[2] === 'm' ? 60 : 1);
  const durationMs =
    durationText === undefined ? BURST_CHECK.defaultDurationMs : parseDuration(durationText.trim());
  if (durationMs === undefined || durationMs <= 0) {
    throw usageError(`--burst: ${JSON.stringify(durationText)} is not a duration`, [`Example: ${EXAMPLE}`]);
  }
  if (ratePerSecond <= 0) {
    throw usageError(`--burst ${JSON.stringify(text)}: the rate must be above 0.`, [`Example: ${EXAMPLE}`]);
  }
  if (ratePerSecond > BURST_CHECK.maxRatePerSecond) {
    throw usageError(
      `--burst sends at most ${BURST_CHECK.maxRatePerSecond} deliveries a second, not ${round1(ratePerSecond)}.`,
      [`Example: ${EXAMPLE}`],
    );
  }
  if (durationMs > BURST_CHECK.maxDurationMs) {
    throw usageError(
      `--burst runs at most ${BURST_CHECK.maxDurationMs / 1000} s, not ${round1(durationMs / 1000)} s.`,
      [`Example: ${EXAMPLE}`],
    );
  }
  const count = Math.floor((ratePerSecond * durationMs) / 1000);
  if (count < 1) {
    throw usageError(`--burst ${JSON.stringify(text)} sends no delivery: raise the rate or the duration.`, [
      `Example: ${EXAMPLE}`,
    ]);
  }
  return {ratePerSecond, durationMs, count};
}

export interface BurstContext {
  url: URL;
  secret: string;
  describe(answer: PostedAnswer): string;
}

/** The burst check: plan.count deliveries, one every 1/rate s, each a new event; then the answer times. */
export async function runBurst(
  ctx: BurstContext,
  plan: BurstPlan,
): Promise<{verdict: CheckVerdict; report: BurstReport}> {
  const interval = 1000 / plan.ratePerSecond;
  const started = performance.now();
  let lag = 0;
  const sent: Promise<PostedAnswer>[] = [];
  for (let i = 0; i < plan.count; i++) {
    const due = started + i * interval;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    lag = Math.max(lag, performance.now() - due);
    sent.push(send(ctx));
  }
  const answers = await Promise.all(sent);
  const report = reportOf(plan, answers, lag);
  return {verdict: judgeBurst(ctx, plan, answers, report), report};
}

function send(ctx: BurstContext): Promise<PostedAnswer> {
  const event = sampleEvent('sandbox.ready');
  const body = JSON.stringify(event);
  const headers = deliveryHeaders({
    secret: ctx.secret,
    body,
    timestamp: Math.floor(Date.now() / 1000),
    eventId: event.id,
    eventType: event.type,
    deliveryId: newId('delivery'),
  });
  return postDelivery(ctx.url, {headers, body});
}

/** The nearest-rank percentile of sorted values. */
function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length, Math.ceil((p / 100) * sorted.length)) - 1] as number;
}

function reportOf(plan: BurstPlan, answers: PostedAnswer[], lagMs: number): BurstReport {
  const timed = answers
    .filter((a) => a.status_code !== null || a.timed_out)
    .map((a) => (a.timed_out ? DELIVERY_TIMEOUT_MS : a.duration_ms))
    .sort((a, b) => a - b);
  const statuses: Record<string, number> = {};
  for (const a of answers) {
    if (a.status_code !== null) statuses[a.status_code] = (statuses[a.status_code] ?? 0) + 1;
  }
  const p99 = percentile(timed, 99);
  return {
    arrivals: BURST_ARRIVALS,
    rate_per_second: plan.ratePerSecond,
    duration_ms: plan.durationMs,
    sent: answers.length,
    accepted: answers.filter((a) => a.accepted).length,
    timed_out: answers.filter((a) => a.timed_out).length,
    unanswered: answers.filter((a) => a.status_code === null && !a.timed_out).length,
    statuses,
    p50_ms: percentile(timed, 50),
    p99_ms: p99,
    max_ms: timed.length > 0 ? (timed[timed.length - 1] as number) : null,
    budget_ms: DELIVERY_TIMEOUT_MS,
    slow_ack_at_ms: SLOW_ACK_AT_MS,
    slow_ack: p99 !== null && p99 >= SLOW_ACK_AT_MS,
    max_send_lag_ms: Math.round(lagMs),
  };
}

/** "p50 3 ms, p99 40 ms, max 52 ms of the 10 s budget", with "≥" where a timeout stands for the budget. */
export function describeTimes(r: BurstReport): string {
  const at = (ms: number | null) =>
    ms === null ? 'none' : ms >= r.budget_ms && r.timed_out > 0 ? `≥${ms} ms` : `${ms} ms`;
  return `p50 ${at(r.p50_ms)}, p99 ${at(r.p99_ms)}, max ${at(r.max_ms)} of the ${r.budget_ms / 1000} s budget`;
}

/** "500 deliveries at 50/s for 10 s, evenly spaced" */
export function describeBurst(r: BurstReport): string {
  return `${r.sent} deliveries at ${round1(r.rate_per_second)}/s for ${round1(r.duration_ms / 1000)} s, evenly spaced`;
}

function judgeBurst(
  ctx: BurstContext,
  plan: BurstPlan,
  answers: PostedAnswer[],
  report: BurstReport,
): CheckVerdict {
  const title = `A burst of ${plan.count} deliveries (${round1(plan.ratePerSecond)}/s) is answered in time: p99 under ${SLOW_ACK_AT_MS / 1000} s`;
  const expected = `every delivery answered 2xx, p99 under ${SLOW_ACK_AT_MS} ms (${SLOW_ACK_BUDGET_SHARE * 100} % of the ${DELIVERY_TIMEOUT_MS / 1000} s budget)`;
  const lag =
    report.max_send_lag_ms > interval(plan)
      ? ` (the sender fell up to ${report.max_send_lag_ms} ms behind its schedule)`
      : '';
  const times = `${describeTimes(report)}; ${describeBurst(report)}${lag}`;
  const base = {id: BURST_CHECK_ID, group: 'delivery' as const, title, expected};
  if (report.slow_ack) {
    const late = report.timed_out > 0 ? `, ${report.timed_out} past the budget` : '';
    return {...base, status: 'fail', got: `slow ack: ${times}${late}`, fix: FIX_SLOW};
  }
  const failed = answers.filter((a) => !a.accepted);
  if (failed.length > 0) {
    return {
      ...base,
      status: 'fail',
      got: `${failed.length} of ${answers.length} not answered 2xx (e.g. ${ctx.describe(failed[0] as PostedAnswer)}); ${times}`,
      fix: failed.some((a) => a.timed_out) ? FIX_SLOW : FIX_REFUSED,
    };
  }
  return {...base, status: 'pass', got: times, fix: ''};
}

const interval = (plan: BurstPlan) => Math.ceil(1000 / plan.ratePerSecond);
const round1 = (n: number) => Math.round(n * 10) / 10;

/**
 * The burst's verdict in words that stay the same from run to run against the same receiver: which way it went,
 * against the fixed slow-ack line, without the measured times and counts. The JUnit report writes these; the text
 * output and `--json` keep the figures.
 */
export function steadyBurstGot(verdict: CheckVerdict, report: BurstReport | undefined): string {
  if (verdict.status === 'skip' || !report) return verdict.got;
  const figures = '(the times and the answers: the text output and --json)';
  if (verdict.status === 'pass') return `every delivery answered 2xx, p99 under ${SLOW_ACK_AT_MS} ms`;
  if (report.slow_ack) {
    return `slow ack: p99 at or past ${SLOW_ACK_AT_MS} ms of the ${DELIVERY_TIMEOUT_MS / 1000} s budget ${figures}`;
  }
  return `deliveries not answered 2xx ${figures}`;
}
