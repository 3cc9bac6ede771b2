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
  // One statement, attempts aggregated as JSON: each query is a round trip to the database.
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
    attempt_list: string | null;
  }>(
    `SELECT d.id, d.endpoint_id, d.event_id, d.event_type, d.status, d.attempts, d.created_at, d.next_attempt_at, e.body,
            (SELECT json_agg(json_build_object(
                      'attempt', a.attempt, 'started_at', a.started_at, 'duration_ms', a.duration_ms,
                      'status_code', a.status_code, 'error', a.error,
                      'response_body', left(a.response_body, ${RESPONSE_BODY_LIMIT_BYTES}), 'trigger', a.trigger)
                    ORDER BY a.attempt DESC)::text
               FROM delivery_attempts a WHERE a.delivery_id = d.id) AS attempt_list
       FROM deliveries d JOIN events e ON e.id = d.event_id
      WHERE d.id = $1 AND d.endpoint_id = $2 AND d.org_id = $3`,
    [input.deliveryId, input.endpointId, input.orgId],
  );
  const d = rows[0];
  if (!d) return undefined;
  const attempts = JSON.parse(d.attempt_list ?? '[]') as {
    attempt: number;
    started_at: string;
    duration_ms: number;
    status_code: number | null;
    error: string | null;
    response_body: string | null;
    trigger: string;
  }[];
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
    attemptList: attempts.map((a) => ({
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
