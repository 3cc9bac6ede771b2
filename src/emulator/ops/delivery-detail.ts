// One delivery as the emulator knows it: the list's record, the event body it carries, and every attempt made.
import {isId, RETENTION_MS} from '../../definitions.js';
import type {DeliveryAttempt, DeliveryDetail} from '../../schemas/emulator.js';
import type {SvcEvent} from '../../schemas/index.js';
import type {EmulatorContext} from '../context.js';
import {isoRequired} from '../db/repository-support.js';
import {type AttemptRow, findDeliveryDetail} from '../delivery/attempt-repository.js';
import {toDeliveryRecord} from '../db/deliveries.js';
import {notFound} from '../operation-error.js';

export type {DeliveryAttempt, DeliveryDetail};

export function checkDeliveryId(deliveryId: string): void {
  if (!isId('delivery', deliveryId)) throw notFound('no delivery with this id');
}

/**
 * The delivery within the retention window of its org's clock (the list shows nothing older either), or
 * not_found.
 */
export async function getDeliveryDetail(
  ctx: Pick<EmulatorContext, 'db' | 'clock'>,
  input: {deliveryId: string},
): Promise<DeliveryDetail> {
  checkDeliveryId(input.deliveryId);
  const detail = await deliveryDetailIfKept(ctx, input.deliveryId);
  if (!detail) throw notFound('no delivery with this id');
  return detail;
}

/** The delivery within the retention window of its org's clock, in one read; undefined when there is none. */
export async function deliveryDetailIfKept(
  ctx: Pick<EmulatorContext, 'db' | 'clock'>,
  deliveryId: string,
): Promise<DeliveryDetail | undefined> {
  const since = new Date(ctx.clock.now().getTime() - RETENTION_MS);
  const row = await findDeliveryDetail(ctx.db, deliveryId, since);
  if (!row) return undefined;
  const attempts: AttemptRow[] =
    typeof row.attempts_made === 'string' ? JSON.parse(row.attempts_made) : row.attempts_made;
  return {
    delivery: toDeliveryRecord(row),
    endpoint_id: row.endpoint_id,
    // The stored bytes are the event the emulator built and sent; attempts carried them unchanged.
    event: JSON.parse(row.body) as SvcEvent,
    attempts: attempts.map((a) => ({
      attempt: Number(a.attempt),
      started_at: isoRequired(a.started_at),
      signature_t: a.signature_t == null ? null : Number(a.signature_t),
      trigger: a.trigger,
      status_code: a.status_code == null ? null : Number(a.status_code),
      error: a.error,
      duration_ms: Number(a.duration_ms),
      response_body: a.response_body,
    })),
  };
}
