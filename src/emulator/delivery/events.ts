// Events and their fan-out: the body is serialised once, stored, and sent byte for byte on every attempt.
import type {EventType} from '../../definitions.js';
import {type EventSet, shapeEvent} from '../../schemas/event-shape.js';
import type {SvcEvent} from '../../schemas/index.js';
import type {Queryable} from '../db/database.js';
import {newId} from '../../ids.js';
import {invalidInput} from '../operation-error.js';
import type {PreparedStatements, Statement} from './statements.js';

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
  /** Also insert this sandbox row in the same statement (a sandbox born for the event, as `trigger` makes). */
  insertSandbox?: SandboxFields & {org_id: string; created_at: Date; updated_at: Date};
  /** Values that shape the body (a trigger's `set`); a body they would make invalid is refused whole. */
  sets?: readonly EventSet[];
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

function shaped(event: SvcEvent, sets: readonly EventSet[] | undefined): SvcEvent {
  if (!sets?.length) return event;
  const result = shapeEvent(event, sets);
  if (!result.event)
    throw invalidInput(result.problems.map((p) => ({field: `set.${p.field}`, message: p.message})));
  return result.event;
}

/**
 * Delivery ids minted in JavaScript per event: enough for any org held to the endpoint limit. Endpoints past
 * them (an org with many `svc listen` relays) get ids made by the database, of the same shape, so the event
 * and all its deliveries are still one statement.
 */
const MINTED_IDS = 16;

function recordEventSql(withSandbox: boolean): string {
  const born = withSandbox
    ? `born AS (
       INSERT INTO sandboxes (id, org_id, name, status, desired_state, last_error, expires_at, created_at, updated_at)
       VALUES ($7, $2, $8, $9, $10, $11, $12, $4, $4)
     ), `
    : '';
  return `WITH ${born}stored AS (
       INSERT INTO events (id, org_id, type, created_at, body) VALUES ($1, $2, $3, $4, $5)
     ), targets AS (
       SELECT id, row_number() OVER (ORDER BY created_at, id) AS n
         FROM webhook_endpoints WHERE org_id = $2 AND $3 = ANY(events)
     )
     INSERT INTO deliveries (id, org_id, event_id, endpoint_id, event_type, status, attempts, created_at, next_attempt_at)
     SELECT COALESCE(($6::text[])[n], 'dlv_' || substr(md5(gen_random_uuid()::text), 1, 24)),
            $2, $1, targets.id, $3, 'pending', 0, $4, $4
       FROM targets ORDER BY n
     RETURNING id`;
}

const EVENT_TYPES_SQL = ['text', 'text', 'text', 'timestamptz', 'text', 'text[]'] as const;
const RECORD_EVENT: Statement = {
  name: 'svc_record_event',
  sql: recordEventSql(false),
  types: [...EVENT_TYPES_SQL],
};
const RECORD_EVENT_WITH_SANDBOX: Statement = {
  name: 'svc_record_event_sandbox',
  sql: recordEventSql(true),
  types: [...EVENT_TYPES_SQL, 'text', 'text', 'text', 'text', 'text', 'timestamptz'],
};

/**
 * Stores the event and one pending delivery per endpoint subscribed to its type right now, in one statement:
 * atomic without a transaction, and one round trip on the hot path. A caller's transaction, when there is one,
 * also covers the sandbox move that caused the event.
 */
export async function recordEvent(
  q: Queryable,
  input: NewEvent,
  statements?: PreparedStatements,
): Promise<RecordedEvent> {
  const id = newId('event');
  const event = shaped(buildEvent(id, input), input.sets);
  const body = JSON.stringify(event);
  const ids = Array.from({length: MINTED_IDS}, () => newId('delivery'));
  const sb = input.insertSandbox;
  const params: unknown[] = [id, input.orgId, input.type, input.now, body, ids];
  if (sb) params.push(sb.id, sb.name, sb.status, sb.desired_state, sb.last_error, sb.expires_at);
  const statement = sb ? RECORD_EVENT_WITH_SANDBOX : RECORD_EVENT;
  const stored = statements
    ? await statements.run<{id: string}>(q, statement, params)
    : await q.query<{id: string}>(statement.sql, params);
  return {event, body, deliveryIds: stored.rows.map((r) => r.id)};
}
