// `svc emulator deliveries resend`: a new attempt of a delivery now, outside its retry schedule; with --failed,
// one for each failed delivery that matches, at most --limit, a page per call to the emulator: each call answers
// within seconds, progress is shown between them, and a run stopped (Ctrl+C) closes its call, which stops the
// emulator's work at once.
import {EmulatorControlError, type ResendOutcome, type ResentDelivery} from '@svc/client';
import {RESEND_FAILED_LIMIT} from '../../../definitions.js';
import {usageError} from '../../../lib/errors.js';
import {checkWebhookId} from '../../webhooks/deliveries.js';
import {checkDeliveryId} from '../../webhooks/deliveries/show.js';
import {type ConnectOptions, withControl} from '../connect.js';

/** The delivery after the resend (with how the resend went), the emulator it was made in and that emulator's clock. */
export interface ResentAt {
  detail: ResentDelivery;
  apiUrl: string;
  nowMs: number;
}

export function resendDelivery(options: ConnectOptions & {deliveryId: string}): Promise<ResentAt> {
  checkDeliveryId(options.deliveryId);
  return withControl(options, async (control, info) => {
    const detail = await control.resendDelivery(options.deliveryId);
    const clock = await control.clock();
    return {detail, apiUrl: info.api_url, nowMs: Date.parse(clock.now)};
  });
}

export interface ResendFailedOptions extends ConnectOptions {
  webhookId?: string;
  /** A duration (`90m`, `1d`): only deliveries created within it, on the emulator's clock. */
  since?: string;
  /** At most this many resends (RESEND_FAILED_LIMIT.default when not given). */
  limit?: number;
  /** Told after each page that another follows: every outcome so far, and the run's limit. */
  onProgress?: (outcomes: readonly ResendOutcome[], limit: number) => void;
}

/** What a bulk resend did: the contract's `resent` and `deliveries`, each outcome, and whether more matched. */
export interface ResentFailed {
  resent: number;
  deliveries: string[];
  outcomes: ResendOutcome[];
  /** Failed deliveries past the limit matched too and were not resent. */
  more: boolean;
  limit: number;
  api_url: string;
}

/** Checks --limit: a whole number from 1 to the maximum. */
export function checkResendLimit(limit: number | undefined): number {
  const n = limit ?? RESEND_FAILED_LIMIT.default;
  if (!Number.isInteger(n) || n < 1 || n > RESEND_FAILED_LIMIT.max) {
    throw usageError(`--limit must be a whole number from 1 to ${RESEND_FAILED_LIMIT.max}`, [
      'Narrow the run with --webhook or --since',
    ]);
  }
  return n;
}

export function resendFailed(options: ResendFailedOptions): Promise<ResentFailed> {
  if (options.webhookId !== undefined) checkWebhookId(options.webhookId);
  const limit = checkResendLimit(options.limit);
  return withControl(options, async (control, info) => {
    const outcomes: ResendOutcome[] = [];
    let after: string | undefined;
    let more = false;
    for (;;) {
      let page: Awaited<ReturnType<typeof control.resendFailed>>;
      try {
        page = await control.resendFailed({
          webhook_id: options.webhookId,
          since: options.since,
          limit: limit - outcomes.length,
          after,
        });
      } catch (err) {
        // The emulator checks the duration (one parser of durations); a bad one is the caller's usage mistake.
        const since =
          err instanceof EmulatorControlError ? err.problems.find((p) => p.field === 'since') : undefined;
        if (since) throw usageError(`--since ${since.message}`);
        throw err;
      }
      outcomes.push(...page.outcomes);
      more = page.next !== null;
      if (page.next === null || outcomes.length >= limit) break;
      after = page.next;
      options.onProgress?.(outcomes, limit);
    }
    return {
      resent: outcomes.length,
      deliveries: outcomes.map((o) => o.delivery_id),
      outcomes,
      more,
      limit,
      api_url: info.api_url,
    };
  });
}
