// One delivery as the emulator knows it: the list's record, the event body it carries, and every attempt made.
import {isId, RETENTION_MS} from '../../src/definitions.js';
import type {AttemptTrigger} from '../../src/definitions.js';
import type {Delivery} from '../../src/schemas/index.js';
import type {EmulatorContext} from '../context.js';
import type {Queryable} from '../db/database.js';
import {iso, isoRequired} from '../db/repository-support.js';
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

interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  status: string;
  attempts: number;
  created_at: Date | string;
  last_attempt_at: Date | string | null;
  next_attempt_at: Date | string | null;
  last_status_code: number | null;
  body: string;
}

interface AttemptRow {
  attempt: number;
  started_at: Date | string;
  signature_t: string | number | null;
  trigger: AttemptTrigger;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  response_body: string | null;
}

export function checkDeliveryId(deliveryId: string): void {
  if (!isId('delivery', deliveryId)) throw notFound('no delivery with this id');
}

/** The delivery within the retention window (the list shows nothing older either), or not_found. */
export async function getDeliveryDetail(
  ctx: Pick<EmulatorContext, 'db' | 'clock'>,
  input: {deliveryId: string},
  q: Queryable = ctx.db,
): Promise<DeliveryDetail> {
  checkDeliveryId(input.deliveryId);
  const since = new Date(ctx.clock.now().getTime() - RETENTION_MS);
  const found = await q.query<DeliveryRow>(
    `SELECT d.id, d.endpoint_id, d.event_id, d.event_type, d.status, d.attempts, d.created_at, d.last_attempt_at,
            d.next_attempt_at, d.last_status_code, e.body
       FROM deliveries d JOIN events e ON e.id = d.event_id
      WHERE d.id = $1 AND d.created_at > $2`,
    [input.deliveryId, since],
  );
  const row = found.rows[0];
  if (!row) throw notFound('no delivery with this id');
  const attempts = await q.query<AttemptRow>(
    `SELECT attempt, started_at, signature_t, trigger, status_code, error, duration_ms, response_body
       FROM delivery_attempts WHERE delivery_id = $1 ORDER BY attempt`,
    [input.deliveryId],
  );
  return {
    delivery: toDeliveryRecord(row),
    endpoint_id: row.endpoint_id,
    event: parseBody(row.body),
    attempts: attempts.rows.map((a) => ({
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
