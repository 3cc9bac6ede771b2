// SQL of the delivery engine: claim due deliveries under a lease, record attempts in batches, find the next
// due time, purge what retention allows. Plain SQL that runs on PGlite and PostgreSQL alike.
import {
  type AttemptTrigger,
  type DeliveryStatus,
  MAX_DELIVERIES_LISTED,
  RETENTION_MS,
} from '../../src/definitions.js';
import type {Delivery} from '../../src/schemas/index.js';
import type {Database, Queryable} from '../db/database.js';
import {iso, isoRequired} from '../db/repository-support.js';
import type {PreparedStatements, Statement} from './statements.js';

export interface ClaimedDelivery {
  id: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  /** Number of this attempt among all attempts made (1 for the first); sent as Svc-Delivery-Attempt. */
  attempt: number;
  /** Its place in the retry schedule: resends (manual attempts) take no place in it. */
  scheduledAttempt: number;
  body: string;
  url: string;
  secretCiphertext: string;
  relay: boolean;
  /** Its place in the endpoint's lane order: due time, then insertion order. */
  dueAt?: Date;
  seq?: number;
}

export interface ClaimOptions {
  /** Emulator-clock time: what is due. */
  now: Date;
  /** Real time: leases protect against crashed processes, which the emulator clock knows nothing about. */
  realNow: Date;
  leaseUntil: Date;
  owner: string;
  /**
   * Endpoints with an attempt in flight in this process: per-endpoint order means one lane each. Several
   * processes sharing one PostgreSQL never claim the same delivery (row locks, leases), but do not
   * coordinate the order of one endpoint's deliveries between them.
   */
  busyEndpoints: string[];
  /** Relay endpoints with a listener attached; the other relay endpoints wait without using attempts. */
  connectedRelays: string[];
  /** Deliveries handed out in all (the exclusive claim; the leased one hands out at most lanes x perEndpoint). */
  limit: number;
  /** Endpoints that may get a lane. */
  lanes?: number;
  perEndpoint: number;
  /**
   * This process is the database's only user: the in-process busy set already keeps a delivery from being
   * claimed twice, so rows are read rather than locked and leased (half the writes per delivery).
   */
  exclusive?: boolean;
}

/**
 * The first key of the transaction-scoped advisory locks a claim takes on the endpoints it chose (the second is a
 * hash of the endpoint id): the two-key form keeps them apart from any single-key lock.
 */
const CLAIM_LOCK_CLASS = 0x5ec1;

/**
 * The claim on a shared database. It walks endpoints, as the exclusive claim does: the free endpoints whose oldest
 * due, unleased delivery is oldest get the lanes, and each locks (skipping rows another process holds) and leases
 * its first `perEndpoint` such deliveries from one range of deliveries_endpoint_due. The lease is written through
 * the locked rows' ctid. So a claim reads the rows it leases plus one probe per endpoint: ranking every due
 * delivery instead read the whole deliveries table twice per claim, a cost that grew with the backlog. Two processes claiming at the same moment choose the same endpoints (neither sees the
 * other's leases yet); the advisory lock, held until the claim commits, gives each endpoint to one of them whole
 * and leaves the other to take the remaining endpoints on its next look, instead of both splitting the same batches
 * between them out of order.
 */
const CLAIM: Statement = {
  name: 'svc_delivery_claim',
  types: ['timestamptz', 'timestamptz', 'text[]', 'text[]', 'int', 'int', 'timestamptz', 'text'],
  sql: `WITH heads AS (
       SELECT w.id AS endpoint_id, w.url, w.secret_ciphertext, r.endpoint_id IS NOT NULL AS relay
         FROM webhook_endpoints w
         LEFT JOIN relay_endpoints r ON r.endpoint_id = w.id
        CROSS JOIN LATERAL (
              SELECT d.next_attempt_at, d.seq FROM deliveries d
               WHERE d.endpoint_id = w.id AND d.status = 'pending' AND d.next_attempt_at <= $1
                 AND (d.locked_until IS NULL OR d.locked_until <= $2)
               ORDER BY d.next_attempt_at, d.seq
               LIMIT 1) h
        WHERE NOT (w.id = ANY($3::text[]))
          AND (r.endpoint_id IS NULL OR r.endpoint_id = ANY($4::text[]))
        ORDER BY h.next_attempt_at, h.seq
        LIMIT $5
     ), mine AS (
       SELECT * FROM heads WHERE pg_try_advisory_xact_lock(${CLAIM_LOCK_CLASS}, hashtext(heads.endpoint_id))
     ), picked AS (
       SELECT p.ctid AS row_id, mine.url, mine.secret_ciphertext, mine.relay
         FROM mine
        CROSS JOIN LATERAL (
              SELECT d.ctid FROM deliveries d
               WHERE d.endpoint_id = mine.endpoint_id AND d.status = 'pending' AND d.next_attempt_at <= $1
                 AND (d.locked_until IS NULL OR d.locked_until <= $2)
               ORDER BY d.next_attempt_at, d.seq
               LIMIT $6
               FOR UPDATE OF d SKIP LOCKED) p
     )
     UPDATE deliveries d SET locked_until = $7, locked_by = $8
       FROM picked p, events e
      WHERE d.ctid = p.row_id AND e.id = d.event_id
      RETURNING d.id, d.endpoint_id, d.event_id, d.event_type, d.attempts, d.manual_attempts, e.body, p.url,
                p.secret_ciphertext, p.relay, d.next_attempt_at, d.seq`,
};

/**
 * The same choice without row locks or leases, for a process that owns its database (PGlite owns its data dir).
 * It walks endpoints rather than deliveries: the free endpoints whose oldest due delivery is oldest get the
 * lanes, and each hands out its first `perEndpoint` due deliveries from one range of deliveries_endpoint_due.
 * So a claim reads the rows it returns plus one probe per endpoint, however large the backlog is. Every parameter
 * is read through a sub-select, so no plan knows its value: with plain parameters each custom plan looked cheaper
 * than the generic one, and PGlite planned the statement afresh on every claim.
 */
const CLAIM_EXCLUSIVE: Statement = {
  name: 'svc_delivery_claim_by_endpoint',
  types: ['timestamptz', 'text[]', 'text[]', 'int', 'int', 'int'],
  sql: `WITH heads AS (
       SELECT w.id AS endpoint_id, w.url, w.secret_ciphertext, r.endpoint_id IS NOT NULL AS relay,
              h.next_attempt_at, h.seq
         FROM webhook_endpoints w
         LEFT JOIN relay_endpoints r ON r.endpoint_id = w.id
        CROSS JOIN LATERAL (
              SELECT d.next_attempt_at, d.seq FROM deliveries d
               WHERE d.endpoint_id = w.id AND d.status = 'pending' AND d.next_attempt_at <= (SELECT $1)
               ORDER BY d.next_attempt_at, d.seq
               LIMIT 1) h
        WHERE NOT (w.id = ANY((SELECT $2)::text[]))
          AND (r.endpoint_id IS NULL OR r.endpoint_id = ANY((SELECT $3)::text[]))
        ORDER BY h.next_attempt_at, h.seq
        LIMIT (SELECT $4)
     )
     SELECT d.id, heads.endpoint_id, d.event_id, d.event_type, d.attempts, d.manual_attempts, e.body, heads.url,
            heads.secret_ciphertext, heads.relay, d.next_attempt_at, d.seq
       FROM heads
      CROSS JOIN LATERAL (
            SELECT d.id, d.event_id, d.event_type, d.attempts, d.manual_attempts, d.next_attempt_at, d.seq FROM deliveries d
             WHERE d.endpoint_id = heads.endpoint_id AND d.status = 'pending' AND d.next_attempt_at <= (SELECT $1)
             ORDER BY d.next_attempt_at, d.seq
             LIMIT (SELECT $5)) d
       JOIN events e ON e.id = d.event_id
      ORDER BY heads.next_attempt_at, heads.seq, d.next_attempt_at, d.seq
      LIMIT (SELECT $6)`,
};

/**
 * The next due deliveries of one endpoint after a given place in its lane order, for a lane that keeps going
 * (exclusive use only): its own batch is still being sent, so the batch after it is read by keyset, and nothing
 * of the current batch, recorded yet or not, comes back.
 */
const CLAIM_ENDPOINT_AFTER: Statement = {
  name: 'svc_delivery_claim_endpoint_after',
  types: ['text', 'timestamptz', 'timestamptz', 'bigint', 'int'],
  sql: `SELECT d.id, d.endpoint_id, d.event_id, d.event_type, d.attempts, d.manual_attempts, e.body, w.url, w.secret_ciphertext,
            EXISTS (SELECT 1 FROM relay_endpoints r WHERE r.endpoint_id = w.id) AS relay, d.next_attempt_at, d.seq
       FROM deliveries d
       JOIN events e ON e.id = d.event_id
       JOIN webhook_endpoints w ON w.id = d.endpoint_id
      WHERE d.endpoint_id = (SELECT $1) AND d.status = 'pending' AND d.next_attempt_at <= (SELECT $2)
        AND (d.next_attempt_at, d.seq) > ((SELECT $3), (SELECT $4))
      ORDER BY d.next_attempt_at, d.seq
      LIMIT (SELECT $5)`,
};

interface ClaimRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  attempts: number;
  manual_attempts: number;
  body: string;
  url: string;
  secret_ciphertext: string;
  relay: boolean;
  next_attempt_at?: Date | string;
  seq?: string | number;
}

function toClaimed(r: ClaimRow): ClaimedDelivery {
  const claimed: ClaimedDelivery = {
    id: r.id,
    endpointId: r.endpoint_id,
    eventId: r.event_id,
    eventType: r.event_type,
    attempt: r.attempts + 1,
    scheduledAttempt: r.attempts - r.manual_attempts + 1,
    body: r.body,
    url: r.url,
    secretCiphertext: r.secret_ciphertext,
    relay: r.relay,
  };
  if (r.next_attempt_at !== undefined && r.seq !== undefined) {
    claimed.dueAt = new Date(r.next_attempt_at);
    claimed.seq = Number(r.seq);
  }
  return claimed;
}

/** Exclusive use only: up to `limit` due deliveries of one endpoint that come after `after` in its lane order. */
export async function claimEndpointAfter(
  db: Database,
  statements: PreparedStatements,
  o: {endpointId: string; now: Date; after: {dueAt: Date; seq: number}; limit: number},
): Promise<ClaimedDelivery[]> {
  const r = await statements.run<ClaimRow>(db, CLAIM_ENDPOINT_AFTER, [
    o.endpointId,
    o.now,
    o.after.dueAt,
    o.after.seq,
    o.limit,
  ]);
  return r.rows.map(toClaimed);
}

/**
 * One statement, so one round trip and its own transaction: lock the due rows (skipping any another worker
 * holds), keep the first `perEndpoint` of each endpoint in order, lease those and return what sending needs.
 */
export async function claimDue(
  db: Database,
  statements: PreparedStatements,
  o: ClaimOptions,
): Promise<ClaimedDelivery[]> {
  const lanes = o.lanes ?? o.limit;
  const claimed = await statements.run<ClaimRow>(
    db,
    o.exclusive ? CLAIM_EXCLUSIVE : CLAIM,
    o.exclusive
      ? [o.now, o.busyEndpoints, o.connectedRelays, lanes, o.perEndpoint, o.limit]
      : [o.now, o.realNow, o.busyEndpoints, o.connectedRelays, lanes, o.perEndpoint, o.leaseUntil, o.owner],
  );
  if (o.exclusive) return claimed.rows.map(toClaimed);
  // RETURNING has no order; restore each endpoint's lane order (due time, then insertion order).
  const rows = claimed.rows.map(toClaimed);
  return rows.sort(
    (a, b) => (a.dueAt?.getTime() ?? 0) - (b.dueAt?.getTime() ?? 0) || (a.seq ?? 0) - (b.seq ?? 0),
  );
}

export async function extendLease(db: Database, ids: string[], until: Date, owner: string): Promise<void> {
  if (ids.length === 0) return;
  await db.query(
    `UPDATE deliveries SET locked_until = $2 WHERE id = ANY($1::text[]) AND locked_by = $3 AND status = 'pending'`,
    [ids, until, owner],
  );
}

/** Hands claimed deliveries back untouched (shutdown, or a relay listener that went away). */
export async function releaseLeases(db: Database, ids: string[], owner: string): Promise<void> {
  if (ids.length === 0) return;
  await db.query(
    `UPDATE deliveries SET locked_until = NULL, locked_by = NULL WHERE id = ANY($1::text[]) AND locked_by = $2`,
    [ids, owner],
  );
}

/** Frees every lease: only safe where this process is the database's sole user (PGlite owns its data dir). */
export async function releaseAllLeases(db: Database): Promise<number> {
  const r = await db.query(
    `UPDATE deliveries SET locked_until = NULL, locked_by = NULL WHERE locked_until IS NOT NULL`,
  );
  return r.rowCount;
}

export interface AttemptRecord {
  deliveryId: string;
  attempt: number;
  startedAt: Date;
  finishedAt: Date;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  responseBody: string | null;
  /** The `t` of the attempt's Svc-Signature; null when no signature could be made. */
  signatureT: number | null;
  trigger: AttemptTrigger;
  /** The outcome for the delivery: next status and when to try again. */
  status: 'pending' | 'succeeded' | 'failed';
  nextAttemptAt: Date | null;
}

const RECORD: Statement = {
  name: 'svc_delivery_record',
  types: [
    'text[]',
    'int[]',
    'timestamptz[]',
    'int[]',
    'int[]',
    'text[]',
    'text[]',
    'text[]',
    'text[]',
    'timestamptz[]',
    'bigint[]',
  ],
  sql: `WITH v AS (
       SELECT * FROM unnest($1::text[], $2::int[], $3::timestamptz[], $4::int[], $5::int[], $6::text[], $7::text[],
                            $8::text[], $9::text[], $10::timestamptz[], $11::bigint[])
         AS v(delivery_id, attempt, started_at, duration_ms, status_code, error, response_body, trigger, status,
              next_attempt_at, signature_t)
     ), inserted AS (
       INSERT INTO delivery_attempts (delivery_id, attempt, started_at, duration_ms, status_code, error, response_body,
                                      trigger, signature_t)
       -- A delivery deleted meanwhile (its endpoint removed, retention) is skipped, not a failed batch.
       SELECT v.delivery_id, v.attempt, v.started_at, v.duration_ms, v.status_code, v.error, v.response_body, v.trigger,
              v.signature_t
         FROM v JOIN deliveries kept ON kept.id = v.delivery_id
       ON CONFLICT (delivery_id, attempt) DO NOTHING
     )
     -- The pending check is written so that it cannot match the partial index deliveries_endpoint_due's
     -- predicate: without statistics (PGlite never analyzes) the planner takes that index for a handful of
     -- rows and reads every pending delivery per batch; this way each row is found by its primary key.
     UPDATE deliveries d
        SET status = v.status, attempts = v.attempt, last_attempt_at = v.started_at,
            next_attempt_at = v.next_attempt_at, last_status_code = v.status_code,
            locked_until = NULL, locked_by = NULL
       FROM v
      WHERE d.id = v.delivery_id AND d.status || '' = 'pending' AND d.attempts < v.attempt`,
};

/** Writes a batch of attempts and moves their deliveries: one statement, so atomic without a transaction. */
export async function recordAttempts(
  db: Database,
  statements: PreparedStatements,
  records: AttemptRecord[],
): Promise<void> {
  if (records.length === 0) return;
  const col = <K extends keyof AttemptRecord>(k: K) => records.map((r) => r[k]);
  // The attempts guard keeps a late, duplicate report (after a lease was lost) from moving a delivery backwards.
  await statements.run(db, RECORD, [
    col('deliveryId'),
    col('attempt'),
    col('startedAt'),
    col('durationMs'),
    col('statusCode'),
    col('error'),
    col('responseBody'),
    col('trigger'),
    col('status'),
    col('nextAttemptAt'),
    col('signatureT'),
  ]);
}

/**
 * The earliest emulator-clock time at which something not busy here becomes due, or null. It probes the head of
 * each endpoint's range of deliveries_endpoint_due, so its cost follows the number of endpoints, not the backlog:
 * a scan of all pending deliveries in due order would step over every delivery of the busy endpoints first.
 */
export async function nextDueAt(
  db: Database,
  realNow: Date,
  busyEndpoints: string[],
  connectedRelays: string[],
): Promise<Date | null> {
  const r = await db.query<{at: Date | string | null}>(
    `SELECT min(h.next_attempt_at) AS at
       FROM webhook_endpoints w
       LEFT JOIN relay_endpoints r ON r.endpoint_id = w.id
      CROSS JOIN LATERAL (
            SELECT d.next_attempt_at FROM deliveries d
             WHERE d.endpoint_id = w.id AND d.status = 'pending'
               AND (d.locked_until IS NULL OR d.locked_until <= $1)
             ORDER BY d.next_attempt_at, d.seq
             LIMIT 1) h
      WHERE NOT (w.id = ANY($2::text[]))
        AND (r.endpoint_id IS NULL OR r.endpoint_id = ANY($3::text[]))`,
    [realNow, busyEndpoints, connectedRelays],
  );
  const at = r.rows[0]?.at;
  return at ? new Date(at) : null;
}

/** Retention: events older than the cut-off go, and their deliveries and attempts with them. */
export async function purgeOlderThan(db: Database, cutoff: Date): Promise<number> {
  const deliveries = await db.query('DELETE FROM deliveries WHERE created_at < $1', [cutoff]);
  const events = await db.query('DELETE FROM events WHERE created_at < $1', [cutoff]);
  return deliveries.rowCount + events.rowCount;
}

export interface DeliveryRow {
  id: string;
  event_id: string;
  event_type: string;
  status: string;
  attempts: number;
  created_at: Date | string;
  last_attempt_at: Date | string | null;
  next_attempt_at: Date | string | null;
  last_status_code: number | null;
}

export function toDeliveryRecord(r: DeliveryRow): Delivery {
  return {
    id: r.id,
    event_id: r.event_id,
    event_type: r.event_type,
    status: r.status as DeliveryStatus,
    attempts: Number(r.attempts),
    created_at: isoRequired(r.created_at),
    last_attempt_at: iso(r.last_attempt_at),
    next_attempt_at: iso(r.next_attempt_at),
    last_status_code: r.last_status_code == null ? null : Number(r.last_status_code),
  };
}

export const DELIVERY_RECORD_COLUMNS =
  'id, event_id, event_type, status, attempts, created_at, last_attempt_at, next_attempt_at, last_status_code';

/** Reads of the deliveries table for people and API keys (the engine's own reads are above). */
export class DeliveryReadRepository {
  constructor(private readonly db: Queryable) {}

  /**
   * The most recent deliveries to one endpoint, newest first, within the retention window by the given clock
   * time; with a status, only those in it.
   */
  async listForEndpoint(endpointId: string, now: Date, status?: DeliveryStatus): Promise<Delivery[]> {
    const since = new Date(now.getTime() - RETENTION_MS);
    const {rows} = await this.db.query<DeliveryRow>(
      `SELECT ${DELIVERY_RECORD_COLUMNS}
         FROM deliveries
        WHERE endpoint_id = $1 AND created_at > $2 AND ($3::text IS NULL OR status = $3)
        ORDER BY created_at DESC, id DESC
        LIMIT ${MAX_DELIVERIES_LISTED}`,
      [endpointId, since, status ?? null],
    );
    return rows.map(toDeliveryRecord);
  }
}
