// A resend: one more attempt of a delivery, now, outside its retry schedule.
//
// How a resend counts:
// - It is an attempt made, so it takes the next attempt number (sent as Svc-Delivery-Attempt, kept with the
//   attempt), adds one to the delivery's `attempts`, and becomes its `last_attempt_at` and `last_status_code`.
// - It is not part of the retry schedule: the delivery's status and `next_attempt_at` stay as they were, and
//   the schedule still makes its nine attempts with its waits (it counts scheduled attempts only). A pending
//   delivery resent with success is still retried as planned; a failed or succeeded one stays so.
// - It goes out between the endpoint's scheduled attempts, never beside one (the worker holds the endpoint),
//   so numbers never collide and a receiver still sees one request at a time per endpoint.
import {randomBytes} from 'node:crypto';
import type {EmulatorContext} from '../context.js';
import type {ClaimedDelivery} from '../delivery/repository.js';
import type {AttemptResult} from '../delivery/sender.js';
import {checkDeliveryId, type DeliveryDetail, getDeliveryDetail} from './delivery-detail.js';
import {conflict, notFound, vaultUnavailable} from './errors.js';

/** What sends the attempt: the delivery worker. */
export interface Attempter {
  readonly timeoutMs: number;
  holdEndpoint<T>(endpointId: string, fn: () => Promise<T>): Promise<T>;
  attemptNow(
    item: ClaimedDelivery,
  ): Promise<{startedAt: Date; signatureT: number | null; result: AttemptResult}>;
}

export interface ResendInput {
  deliveryId: string;
  attempter: Attempter;
  /** How long to wait for another process's attempt of this delivery to finish (shared PostgreSQL only). */
  leaseWaitMs?: number;
}

interface TargetRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  body: string;
  url: string;
  secret_ciphertext: string;
  relay: boolean;
}

export async function resendDelivery(ctx: EmulatorContext, input: ResendInput): Promise<DeliveryDetail> {
  checkDeliveryId(input.deliveryId);
  // Found through the detail first, so a delivery past retention is not_found here as everywhere else.
  await getDeliveryDetail(ctx, {deliveryId: input.deliveryId});
  if (!ctx.vault.available) {
    throw vaultUnavailable('resending needs the vault key to read the endpoint signing secret');
  }
  const found = await ctx.db.query<TargetRow>(
    `SELECT d.id, d.endpoint_id, d.event_id, d.event_type, e.body, w.url, w.secret_ciphertext,
            EXISTS (SELECT 1 FROM relay_endpoints r WHERE r.endpoint_id = w.id) AS relay
       FROM deliveries d JOIN events e ON e.id = d.event_id JOIN webhook_endpoints w ON w.id = d.endpoint_id
      WHERE d.id = $1`,
    [input.deliveryId],
  );
  const target = found.rows[0];
  if (!target) throw notFound('no delivery with this id');

  const {attempter} = input;
  await attempter.holdEndpoint(target.endpoint_id, async () => {
    const owner = `resend_${randomBytes(6).toString('hex')}`;
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
    };
    let sent: Awaited<ReturnType<Attempter['attemptNow']>>;
    try {
      sent = await attempter.attemptNow(item);
    } catch (err) {
      await releaseLease(ctx, input.deliveryId, owner);
      throw err;
    }
    if (sent.result.aborted) {
      await releaseLease(ctx, input.deliveryId, owner);
      throw conflict('the emulator is stopping; the resend was not made');
    }
    const r = sent.result;
    const recorded = await ctx.db.query(
      `WITH moved AS (
         UPDATE deliveries
            SET attempts = $2, manual_attempts = manual_attempts + 1, last_attempt_at = $3, last_status_code = $4,
                locked_until = NULL, locked_by = NULL
          WHERE id = $1 AND attempts = $2 - 1
          RETURNING id)
       INSERT INTO delivery_attempts
              (delivery_id, attempt, started_at, duration_ms, status_code, error, response_body, trigger, signature_t)
       SELECT id, $2, $3, $5, $4, $6, $7, 'manual', $8 FROM moved`,
      [
        input.deliveryId,
        item.attempt,
        sent.startedAt,
        r.statusCode,
        r.durationMs,
        r.error?.replaceAll('\u0000', '') ?? null,
        r.responseBody?.replaceAll('\u0000', '') ?? null,
        sent.signatureT,
      ],
    );
    if (recorded.rowCount === 0) {
      await releaseLease(ctx, input.deliveryId, owner);
      throw notFound('the delivery was deleted while it was being resent');
    }
  });
  return getDeliveryDetail(ctx, {deliveryId: input.deliveryId});
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
  const giveUpAt = Date.now() + (input.leaseWaitMs ?? 15_000);
  for (;;) {
    const now = Date.now();
    const r = await ctx.db.query<{attempts: number}>(
      `UPDATE deliveries SET locked_until = $3, locked_by = $4
        WHERE id = $1 AND (locked_until IS NULL OR locked_until <= $2)
        RETURNING attempts`,
      [input.deliveryId, new Date(now), new Date(now + leaseMs), owner],
    );
    const row = r.rows[0];
    if (row) return Number(row.attempts);
    const exists = await ctx.db.query('SELECT 1 FROM deliveries WHERE id = $1', [input.deliveryId]);
    if (exists.rows.length === 0) throw notFound('no delivery with this id');
    if (Date.now() >= giveUpAt) {
      throw conflict('an attempt of this delivery is in flight; try again in a few seconds');
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function releaseLease(ctx: EmulatorContext, deliveryId: string, owner: string): Promise<void> {
  await ctx.db.query(
    'UPDATE deliveries SET locked_until = NULL, locked_by = NULL WHERE id = $1 AND locked_by = $2',
    [deliveryId, owner],
  );
}
