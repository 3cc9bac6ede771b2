// One delivery as the emulator knows it: the list's record, the event body it carries, and every attempt made.
import {isId, RETENTION_MS} from '../../src/definitions.js';
import type {AttemptTrigger} from '../../src/definitions.js';
import type {Delivery} from '../../src/schemas/index.js';
import type {EmulatorContext} from '../context.js';
import {isoRequired} from '../db/repository-support.js';
import {findDeliveryWithEvent, listAttempts} from '../delivery/attempt-repository.js';
import {toDeliveryRecord} from '../delivery/repository.js';
import {notFound} from './errors.js';

export interface AttemptDetail {
  /** 1 for the first attempt; resends take the next number, like any attempt. */
  attempt: number;
  started_at: string;
  /** The `t` of the attempt's Svc-Signature (unix seconds); null when no signature could be made. */
  signature_t: number | null;
  trigger: AttemptTrigger;
  /** The receiver's status code; null when it never answered (see `error`). */
  status_code: number | null;
  /** Network error, timeout or refused redirect; null when the receiver answered with a plain status. */
  error: string | null;
  duration_ms: number;
  /** The first RESPONSE_BODY_LIMIT_BYTES of the receiver's answer. */
  response_body: string | null;
}

export interface DeliveryDetail {
  delivery: Delivery;
  endpoint_id: string;
  /** The event exactly as every attempt sent it, parsed. */
  event: unknown;
  /** Oldest first. */
  attempts: AttemptDetail[];
}

export function checkDeliveryId(deliveryId: string): void {
  if (!isId('delivery', deliveryId)) throw notFound('no delivery with this id');
}

/** The delivery within the retention window (the list shows nothing older either), or not_found. */
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
    event: parseBody(row.body),
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

/** The stored bytes are the emulator's own JSON; should they ever not parse, they are shown as they are. */
function parseBody(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}
