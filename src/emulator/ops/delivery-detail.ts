// One delivery as the emulator knows it: the list's record, the event body it carries, and every attempt made.
import {isId, RETENTION_MS} from '../../definitions.js';
import type {DeliveryAttempt, DeliveryDetail} from '../../schemas/emulator.js';
import type {SvcEvent} from '../../schemas/index.js';
import type {EmulatorContext} from '../context.js';
import {isoRequired} from '../db/repository-support.js';
import {findDeliveryWithEvent, listAttempts} from '../delivery/attempt-repository.js';
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
  const since = new Date(ctx.clock.now().getTime() - RETENTION_MS);
  const row = await findDeliveryWithEvent(ctx.db, input.deliveryId, since);
  if (!row) throw notFound('no delivery with this id');
  const attempts = await listAttempts(ctx.db, input.deliveryId);
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
