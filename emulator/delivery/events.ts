// Events of spec §2 and their fan-out: the body is serialised once, stored, and sent byte for byte on every attempt.
import {newId} from '../../src/lib/ids.js';
import type {EventType, SvcEvent} from '../../src/schemas/index.js';
import type {Queryable} from '../db/database.js';
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

/** Delivery ids minted per statement; an org with more subscribed endpoints takes another round. */
const IDS_PER_ROUND = 16;

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
     SELECT ($6::text[])[n], $2, $1, targets.id, $3, 'pending', 0, $4, $4
       FROM targets WHERE n <= cardinality($6::text[]) ORDER BY n
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
 * Stores the event and one pending delivery per endpoint subscribed to its type right now, in one statement
 * (so atomic even outside a transaction, and one round trip on the hot path). The caller's transaction, when
 * there is one, also covers the sandbox move that caused the event. With more than 16 subscribed endpoints
 * later rounds follow, so such callers must pass a transaction.
 */
export async function recordEvent(
  tx: Queryable,
  input: NewEvent,
  statements?: PreparedStatements,
): Promise<RecordedEvent> {
  const id = newId('evt');
  const event = buildEvent(id, input);
  const body = JSON.stringify(event);
  const mint = () => Array.from({length: IDS_PER_ROUND}, () => newId('dlv'));
  const sb = input.insertSandbox;
  const params: unknown[] = [id, input.orgId, input.type, input.now, body, mint()];
  if (sb) params.push(sb.id, sb.name, sb.status, sb.desired_state, sb.last_error, sb.expires_at);
  const statement = sb ? RECORD_EVENT_WITH_SANDBOX : RECORD_EVENT;
  const first = statements
    ? await statements.run<{id: string}>(tx, statement, params)
    : await tx.query<{id: string}>(statement.sql, params);
  const deliveryIds = first.rows.map((r) => r.id);
  // Rare: more endpoints than ids minted. Later rounds pick up where the previous one stopped, in the same order.
  while (deliveryIds.length > 0 && deliveryIds.length % IDS_PER_ROUND === 0) {
    const more = await tx.query<{id: string}>(
      `WITH targets AS (
         SELECT id, row_number() OVER (ORDER BY created_at, id) AS n
           FROM webhook_endpoints WHERE org_id = $2 AND $3 = ANY(events)
       )
       INSERT INTO deliveries (id, org_id, event_id, endpoint_id, event_type, status, attempts, created_at, next_attempt_at)
       SELECT ($6::text[])[n - $5], $2, $1, targets.id, $3, 'pending', 0, $4, $4
         FROM targets WHERE n > $5 AND n <= $5 + cardinality($6::text[]) ORDER BY n
       RETURNING id`,
      [id, input.orgId, input.type, input.now, deliveryIds.length, mint()],
    );
    if (more.rows.length === 0) break;
    deliveryIds.push(...more.rows.map((r) => r.id));
  }
  return {event, body, deliveryIds};
}
