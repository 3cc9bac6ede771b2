// One delivery with its attempts and its event body, for the account page. A small read of its own until the
// emulator's shared delivery-detail operation exists.
import {RESPONSE_BODY_LIMIT_BYTES} from '../../src/definitions.js';
import type {Queryable} from '../db/database.js';

export interface AttemptView {
  attempt: number;
  startedAt: Date;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  responseBody: string | null;
  trigger: string;
}

export interface DeliveryDetail {
  id: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  status: string;
  attempts: number;
  createdAt: Date;
  nextAttemptAt: Date | null;
  eventBody: string;
  attemptList: AttemptView[];
}

/** The delivery when it belongs to this org and endpoint; undefined otherwise (the page answers 404). */
export async function readDeliveryDetail(
  db: Queryable,
  input: {orgId: string; endpointId: string; deliveryId: string},
): Promise<DeliveryDetail | undefined> {
  const {rows} = await db.query<{
    id: string;
    endpoint_id: string;
    event_id: string;
    event_type: string;
    status: string;
    attempts: number;
    created_at: Date | string;
    next_attempt_at: Date | string | null;
    body: string;
  }>(
    `SELECT d.id, d.endpoint_id, d.event_id, d.event_type, d.status, d.attempts, d.created_at, d.next_attempt_at, e.body
       FROM deliveries d JOIN events e ON e.id = d.event_id
      WHERE d.id = $1 AND d.endpoint_id = $2 AND d.org_id = $3`,
    [input.deliveryId, input.endpointId, input.orgId],
  );
  const d = rows[0];
  if (!d) return undefined;
  const attempts = await db.query<{
    attempt: number;
    started_at: Date | string;
    duration_ms: number;
    status_code: number | null;
    error: string | null;
    response_body: string | null;
    trigger: string;
  }>(
    `SELECT attempt, started_at, duration_ms, status_code, error, left(response_body, ${RESPONSE_BODY_LIMIT_BYTES}) AS response_body, trigger
       FROM delivery_attempts WHERE delivery_id = $1 ORDER BY attempt DESC`,
    [d.id],
  );
  return {
    id: d.id,
    endpointId: d.endpoint_id,
    eventId: d.event_id,
    eventType: d.event_type,
    status: d.status,
    attempts: Number(d.attempts),
    createdAt: new Date(d.created_at),
    nextAttemptAt: d.next_attempt_at == null ? null : new Date(d.next_attempt_at),
    eventBody: d.body,
    attemptList: attempts.rows.map((a) => ({
      attempt: Number(a.attempt),
      startedAt: new Date(a.started_at),
      durationMs: Number(a.duration_ms),
      statusCode: a.status_code == null ? null : Number(a.status_code),
      error: a.error,
      responseBody: a.response_body,
      trigger: a.trigger,
    })),
  };
}
