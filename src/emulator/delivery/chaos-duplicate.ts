// Delivery chaos's duplicate: the same event once more, as the service may send it. It takes the next attempt
// number, is freshly signed, goes out right after the attempt it repeats, and is recorded outside the schedule
// (trigger `chaos`), at the time of the delivery's org.
import type {WebhookSigner} from '@svc/webhooks';
import type {Queryable} from '../db/database.js';
import type {AttemptMaker, AttemptTarget} from './attempt-maker.js';
import {recordResend} from './attempt-repository.js';
import type {ClaimedDelivery} from './claim.js';

/**
 * Sends and records a chaos duplicate of `item`'s attempt; false when nothing was recorded (the worker stopped it,
 * or the delivery is gone).
 */
export async function sendChaosDuplicate(
  maker: AttemptMaker,
  db: Queryable,
  item: ClaimedDelivery,
  signer: WebhookSigner,
  to: AttemptTarget,
  /** The org time of the attempt it repeats, which it is made at too. */
  atMs: number,
): Promise<boolean> {
  const copy = {...item, attempt: item.attempt + 1};
  const startedAt = new Date(atMs);
  const t = maker.signatureT(item, atMs);
  const result = await maker.send(copy, signer, t, to);
  if (result.aborted) return false;
  const recorded = await recordResend(db, {
    deliveryId: item.id,
    attempt: copy.attempt,
    startedAt,
    durationMs: result.durationMs,
    statusCode: result.statusCode,
    error: result.error,
    responseBody: result.responseBody,
    signatureT: t,
    trigger: 'chaos',
  });
  return recorded !== undefined;
}
