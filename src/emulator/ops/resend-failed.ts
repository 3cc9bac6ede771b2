// Bulk recovery: the failed deliveries of an org (of one endpoint, created within a time), oldest first, each
// resent by the one resend operation, so a bulk resend counts and records attempts exactly as a single one does.
// A bounded job: one call makes at most a page of resends (RESEND_FAILED_PAGE) and says where to go on, a caller
// asks for at most RESEND_FAILED_LIMIT in all, and the work stops when the caller goes away (`signal`).
import {isId, RESEND_FAILED_LIMIT, RESEND_FAILED_PAGE, RETENTION_MS} from '../../definitions.js';
import type {ResendFailedResult, ResendOutcome} from '../../schemas/emulator.js';
import {parseDuration} from '../clock.js';
import {type EmulatorContext, orgNow} from '../context.js';
import type {FailedPlace} from '../db/deliveries.js';
import type {Attempter} from '../delivery/attempter.js';
import {notFound, vaultUnavailable} from '../operation-error.js';
import {resendOnce} from './resend.js';
import {Problems} from './validate.js';

export interface ResendFailedInput {
  orgId: string;
  /** Only deliveries to this endpoint of the org. */
  endpointId?: unknown;
  /** Only deliveries created within this duration of the org clock's now (`90m`, `1d`). */
  since?: unknown;
  /** At most this many resends in this call (a whole number from 1 to RESEND_FAILED_LIMIT.max). */
  limit?: unknown;
  /** Where a previous call stopped (its `next`): only failed deliveries after it. */
  after?: unknown;
  attempter: Attempter;
  /** The caller went away: no resend starts after it aborts, and the call answers at once. */
  signal?: AbortSignal;
}

/** A place as callers carry it: `<microseconds>.<delivery id>`, opaque to them. */
const PLACE = /^(\d{1,18})\.(dlv_[0-9A-Za-z]+)$/;

export async function resendFailedDeliveries(
  ctx: EmulatorContext,
  input: ResendFailedInput,
): Promise<ResendFailedResult> {
  const problems = new Problems();
  if (input.endpointId !== undefined && typeof input.endpointId !== 'string') {
    problems.add('webhook_id', 'must be a string');
  }
  let sinceMs: number | undefined;
  if (input.since !== undefined) {
    sinceMs = typeof input.since === 'string' ? parseDuration(input.since) : undefined;
    if (sinceMs === undefined) problems.add('since', 'must be a duration like 90s, 10m, 3h or 7d');
  }
  const limit = input.limit ?? RESEND_FAILED_LIMIT.default;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > RESEND_FAILED_LIMIT.max) {
    problems.add('limit', `must be a whole number from 1 to ${RESEND_FAILED_LIMIT.max}`);
  }
  let after: FailedPlace | undefined;
  if (input.after !== undefined) {
    const m = typeof input.after === 'string' ? PLACE.exec(input.after) : null;
    if (m) after = {atUs: m[1] as string, id: m[2] as string};
    else problems.add('after', 'must be the `next` of an earlier answer');
  }
  problems.throwIfAny();
  if (!isId('org', input.orgId)) throw notFound('no org with this id');
  if (!ctx.vault.available) {
    throw vaultUnavailable('resending needs the vault key to read the endpoint signing secrets');
  }
  const endpoints = await ctx.repos.endpoints.list(input.orgId);
  const endpointId = input.endpointId as string | undefined;
  if (endpointId !== undefined && !endpoints.some((e) => e.id === endpointId)) {
    throw notFound('no webhook endpoint with this id');
  }
  const now = orgNow(ctx, input.orgId).getTime();
  const since = new Date(now - Math.min(sinceMs ?? RETENTION_MS, RETENTION_MS));
  const pageSize = Math.min(limit as number, RESEND_FAILED_PAGE.deliveries);
  // One more than the page: whether any is left after it.
  const found = await ctx.repos.deliveries.failedSince(
    endpointId ? [endpointId] : endpoints.map((e) => e.id),
    since,
    {limit: pageSize + 1, after},
  );

  const {timers} = input.attempter;
  const stopAt = timers.now() + RESEND_FAILED_PAGE.ms;
  const outcomes: ResendOutcome[] = [];
  let last: FailedPlace | undefined;
  let done = 0;
  for (const {id, place} of found.slice(0, pageSize)) {
    // At least one per call, so a caller going on from `next` always gets further.
    if (input.signal?.aborted || (done > 0 && timers.now() >= stopAt)) break;
    const outcome = await untilAborted(
      resendOnce(ctx, {deliveryId: id, attempter: input.attempter}),
      input.signal,
    );
    if (outcome === ABORTED) break;
    done++;
    last = place;
    if (outcome !== GONE) outcomes.push(outcome);
  }
  const more = done < found.length;
  return {
    resent: outcomes.length,
    deliveries: outcomes.map((o) => o.delivery_id),
    outcomes,
    next: more && last ? `${last.atUs}.${last.id}` : more && after ? `${after.atUs}.${after.id}` : null,
  };
}

const ABORTED = Symbol('aborted');
const GONE = Symbol('gone');

/**
 * The resend's outcome; GONE when its delivery went meanwhile (retention, its endpoint deleted: nothing left to
 * recover). ABORTED as soon as `signal` aborts: the resend under way still finishes and is recorded (its request
 * is out), and no other starts.
 */
async function untilAborted(
  resend: Promise<ResendOutcome>,
  signal: AbortSignal | undefined,
): Promise<ResendOutcome | typeof GONE | typeof ABORTED> {
  const settled = resend.then(
    (outcome): ResendOutcome | typeof GONE => outcome,
    (err: unknown): typeof GONE => {
      if ((err as {code?: string}).code === 'not_found') return GONE;
      throw err;
    },
  );
  if (!signal) return settled;
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<typeof ABORTED>((resolve) => {
    onAbort = () => resolve(ABORTED);
    signal.addEventListener('abort', onAbort, {once: true});
  });
  try {
    return await Promise.race([settled, aborted]);
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
    // Left running when the caller went away: its failure has no one to tell.
    settled.catch(() => undefined);
  }
}
