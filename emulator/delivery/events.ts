// Events of spec §2 and their fan-out: the body is serialised once, stored, and sent byte for byte on every attempt.
import {newId} from '../../src/lib/ids.js';
import type {EventType, SvcEvent} from '../../src/schemas/index.js';
import type {Queryable} from '../db/database.js';

export interface SandboxFields {
  id: string;
  name: string;
  status: string;
  desired_state: string;
  last_error: string | null;
  expires_at: Date | null;
}

export interface NewEvent {
  orgId: string;
  type: EventType;
  sandbox: SandboxFields;
  now: Date;
}

export interface RecordedEvent {
  event: SvcEvent;
  body: string;
  deliveryIds: string[];
}

/** The event object with `last_error` and `expires_at` present only when the sandbox has them. */
export function buildEvent(id: string, input: NewEvent): SvcEvent {
  const s = input.sandbox;
  const sandbox: SvcEvent['data']['sandbox'] = {
    id: s.id,
    name: s.name,
    status: s.status,
    desired_state: s.desired_state,
  };
  if (s.last_error !== null && s.last_error !== undefined) sandbox.last_error = s.last_error;
  if (s.expires_at) sandbox.expires_at = s.expires_at.toISOString();
  return {id, type: input.type, created_at: input.now.toISOString(), org_id: input.orgId, data: {sandbox}};
}

/**
 * Stores the event and one pending delivery per endpoint subscribed to its type right now, inside the
 * caller's transaction, so an event is never stored without its deliveries (or the reverse).
 */
export async function recordEvent(tx: Queryable, input: NewEvent): Promise<RecordedEvent> {
  const id = newId('evt');
  const event = buildEvent(id, input);
  const body = JSON.stringify(event);
  await tx.query('INSERT INTO events (id, org_id, type, created_at, body) VALUES ($1, $2, $3, $4, $5)', [
    id,
    input.orgId,
    input.type,
    input.now,
    body,
  ]);
  const endpoints = await tx.query<{id: string}>(
    'SELECT id FROM webhook_endpoints WHERE org_id = $1 AND $2 = ANY(events) ORDER BY created_at, id',
    [input.orgId, input.type],
  );
  const deliveryIds = endpoints.rows.map(() => newId('dlv'));
  if (deliveryIds.length > 0) {
    await tx.query(
      `INSERT INTO deliveries (id, org_id, event_id, endpoint_id, event_type, status, attempts, created_at, next_attempt_at)
       SELECT d.id, $1, $2, d.endpoint_id, $3, 'pending', 0, $4, $4
       FROM unnest($5::text[], $6::text[]) WITH ORDINALITY AS d(id, endpoint_id, n) ORDER BY d.n`,
      [input.orgId, id, input.type, input.now, deliveryIds, endpoints.rows.map((r) => r.id)],
    );
  }
  return {event, body, deliveryIds};
}
