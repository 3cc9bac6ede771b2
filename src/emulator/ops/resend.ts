// A resend: one more attempt of a delivery, now, outside its retry schedule.
//
// How a resend counts:
// - It is an attempt made, so it takes the next attempt number (sent as Svc-Delivery-Attempt, kept with the
//   attempt), adds one to the delivery's `attempts`, and becomes its `last_attempt_at` and `last_status_code`.
// - Answered 2xx in time, it moves the delivery as any attempt does (the service's delivery states): the delivery
//   is succeeded and nothing more is scheduled for it, whether it was pending or failed. Otherwise the delivery's
//   status and `next_attempt_at` stay as they were: a failed delivery stays failed, and a pending one keeps its
//   schedule, which still makes its nine attempts with its waits (it counts scheduled attempts only).
// - It goes out between the endpoint's scheduled attempts, never beside one (the worker holds the endpoint),
//   so numbers never collide and a receiver still sees one request at a time per endpoint.
import {randomBytes} from 'node:crypto';
import type {EmulatorContext} from '../context.js';
import {
  findResendTarget,
  leaseForResend,
  recordResend,
  releaseResendLease,
} from '../delivery/attempt-repository.js';
import type {Attempter} from '../delivery/attempter.js';
import type {ClaimedDelivery} from '../delivery/claim.js';
import {wait} from '../delivery/timers.js';
import type {ResendOutcome, ResentDelivery} from '../../schemas/emulator.js';
import {checkDeliveryId, getDeliveryDetail} from './delivery-detail.js';
import {conflict, notFound, vaultUnavailable} from '../operation-error.js';

export interface ResendInput {
  deliveryId: string;
  attempter: Attempter;
  /** How long to wait for another process's attempt of this delivery to finish (shared PostgreSQL only). */
  leaseWaitMs?: number;
}

/** Resends the delivery and answers with it afterwards, and how the resend went. */
export async function resendDelivery(ctx: EmulatorContext, input: ResendInput): Promise<ResentDelivery> {
  const resend = await resendOnce(ctx, input);
  return {...(await getDeliveryDetail(ctx, {deliveryId: input.deliveryId})), resend};
}

/** Makes the resend and records it: the attempt's number, the receiver's answer and the delivery's state after. */
export async function resendOnce(ctx: EmulatorContext, input: ResendInput): Promise<ResendOutcome> {
  checkDeliveryId(input.deliveryId);
  // Taken before the delivery is read: if its endpoint is deleted from now on, no request is made for it.
  const fence = input.attempter.mark();
  // Found through the detail first, so a delivery past retention is not_found here as everywhere else.
  await getDeliveryDetail(ctx, {deliveryId: input.deliveryId});
  if (!ctx.vault.available) {
    throw vaultUnavailable('resending needs the vault key to read the endpoint signing secret');
  }
  const target = await findResendTarget(ctx.db, input.deliveryId);
  if (!target) throw notFound('no delivery with this id');

  const {attempter} = input;
  return attempter.holdEndpoint(target.endpoint_id, async (): Promise<ResendOutcome> => {
    const owner = `${attempter.owner}:resend_${randomBytes(6).toString('hex')}`;
    const attempts = await takeLease(ctx, input, owner, attempter.timeoutMs + 5_000);
    const item: ClaimedDelivery = {
      id: target.id,
      endpointId: target.endpoint_id,
      eventId: target.event_id,
      eventType: target.event_type,
      attempt: attempts + 1,
      // Unused for a resend: it takes no place in the schedule.
      scheduledAttempt: 0,
      body: target.body,
      url: target.url,
      secretCiphertext: target.secret_ciphertext,
      relay: Boolean(target.relay),
      offsetMs: Number(target.offset_ms),
      fence,
    };
    let sent: Awaited<ReturnType<Attempter['attemptNow']>>;
    try {
      sent = await attempter.attemptNow(item);
    } catch (err) {
      await releaseResendLease(ctx.db, input.deliveryId, owner);
      throw err;
    }
    if (sent.result.aborted) {
      await releaseResendLease(ctx.db, input.deliveryId, owner);
      throw conflict('the emulator is stopping; the resend was not made');
    }
    const r = sent.result;
    const recorded = await recordResend(ctx.db, {
      deliveryId: input.deliveryId,
      attempt: item.attempt,
      startedAt: sent.startedAt,
      durationMs: r.durationMs,
      statusCode: r.statusCode,
      error: r.error,
      responseBody: r.responseBody,
      signatureT: sent.signatureT,
      succeeded: r.ok,
    });
    ctx.engine.changes.changed([input.deliveryId, target.event_id]);
    if (!recorded) {
      await releaseResendLease(ctx.db, input.deliveryId, owner);
      throw notFound('the delivery was deleted while it was being resent');
    }
    return {
      delivery_id: input.deliveryId,
      attempt: item.attempt,
      status_code: r.statusCode,
      error: r.error,
      status: recorded,
    };
  });
}

/**
 * Leases the delivery so that no other process sharing the database attempts it meanwhile (this one's lanes
 * are held off by the worker), and returns its attempt count. Another process's attempt in flight is waited for.
 */
async function takeLease(
  ctx: EmulatorContext,
  input: ResendInput,
  owner: string,
  leaseMs: number,
): Promise<number> {
  const timers = input.attempter.timers;
  const giveUpAt = timers.now() + (input.leaseWaitMs ?? 15_000);
  for (;;) {
    const now = timers.now();
    const lease = await leaseForResend(ctx.db, {
      deliveryId: input.deliveryId,
      now: new Date(now),
      until: new Date(now + leaseMs),
      owner,
    });
    if (lease === 'gone') throw notFound('no delivery with this id');
    if (lease !== 'held') return lease.attempts;
    if (timers.now() >= giveUpAt) {
      throw conflict('an attempt of this delivery is in flight; try again in a few seconds');
    }
    await wait(timers, 200);
  }
}
