// The claim step of the delivery engine, in SQL: claim due deliveries under a lease, extend or hand back leases,
// and find the next due time. Plain SQL that runs on PGlite and PostgreSQL alike.
import type {Database, Queryable} from '../db/database.js';
import {orgOffsetSql} from '../db/org-clocks.js';
import type {PreparedStatements, Statement} from './statements.js';

/** How far the endpoint's org runs ahead of the emulator's clock (its own clock), in milliseconds. */
const ORG_OFFSET = orgOffsetSql('w.org_id');

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
  /** How far its org's clock runs ahead of the emulator's: its attempt's times and schedule follow the org's clock. */
  offsetMs?: number;
  /** The deletions' mark taken before it was read (cancels.ts): deleted after it, its endpoint gets no attempt. */
  fence?: number;
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
 * Keeps every claim on a shared database away from these endpoints until the caller's transaction ends (a claim
 * skips an endpoint whose lock it cannot take): a rewind replaces their deliveries meanwhile.
 */
export async function lockEndpointsAgainstClaims(
  q: Queryable,
  endpointIds: readonly string[],
): Promise<void> {
  await q.query(
    `SELECT pg_advisory_xact_lock(${CLAIM_LOCK_CLASS}, hashtext(id)) FROM unnest($1::text[]) AS id ORDER BY id`,
    [endpointIds],
  );
}

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
       SELECT w.id AS endpoint_id, w.url, w.secret_ciphertext, r.endpoint_id IS NOT NULL AS relay, o.offset_ms,
              o.due_by
         FROM webhook_endpoints w
         LEFT JOIN relay_endpoints r ON r.endpoint_id = w.id
        CROSS JOIN LATERAL (SELECT off.ms AS offset_ms, $1::timestamptz + off.ms * interval '1 millisecond' AS due_by
                              FROM (SELECT ${ORG_OFFSET} AS ms) off) o
        CROSS JOIN LATERAL (
              SELECT d.next_attempt_at, d.seq FROM deliveries d
               WHERE d.endpoint_id = w.id AND d.status = 'pending' AND d.next_attempt_at <= o.due_by
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
       SELECT p.ctid AS row_id, mine.url, mine.secret_ciphertext, mine.relay, mine.offset_ms
         FROM mine
        CROSS JOIN LATERAL (
              SELECT d.ctid FROM deliveries d
               WHERE d.endpoint_id = mine.endpoint_id AND d.status = 'pending' AND d.next_attempt_at <= mine.due_by
                 AND (d.locked_until IS NULL OR d.locked_until <= $2)
               ORDER BY d.next_attempt_at, d.seq
               LIMIT $6
               FOR UPDATE OF d SKIP LOCKED) p
     )
     UPDATE deliveries d SET locked_until = $7, locked_by = $8
       FROM picked p, events e
      WHERE d.ctid = p.row_id AND e.id = d.event_id
      RETURNING d.id, d.endpoint_id, d.event_id, d.event_type, d.attempts, d.manual_attempts, e.body, p.url,
                p.secret_ciphertext, p.relay, d.next_attempt_at, d.seq, p.offset_ms::text AS offset_ms`,
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
              h.next_attempt_at, h.seq, o.offset_ms, o.due_by
         FROM webhook_endpoints w
         LEFT JOIN relay_endpoints r ON r.endpoint_id = w.id
        CROSS JOIN LATERAL (SELECT off.ms AS offset_ms, (SELECT $1)::timestamptz + off.ms * interval '1 millisecond' AS due_by
                              FROM (SELECT ${ORG_OFFSET} AS ms) off) o
        CROSS JOIN LATERAL (
              SELECT d.next_attempt_at, d.seq FROM deliveries d
               WHERE d.endpoint_id = w.id AND d.status = 'pending' AND d.next_attempt_at <= o.due_by
               ORDER BY d.next_attempt_at, d.seq
               LIMIT 1) h
        WHERE NOT (w.id = ANY((SELECT $2)::text[]))
          AND (r.endpoint_id IS NULL OR r.endpoint_id = ANY((SELECT $3)::text[]))
        ORDER BY h.next_attempt_at, h.seq
        LIMIT (SELECT $4)
     )
     SELECT d.id, heads.endpoint_id, d.event_id, d.event_type, d.attempts, d.manual_attempts, e.body, heads.url,
            heads.secret_ciphertext, heads.relay, d.next_attempt_at, d.seq, heads.offset_ms::text AS offset_ms
       FROM heads
      CROSS JOIN LATERAL (
            SELECT d.id, d.event_id, d.event_type, d.attempts, d.manual_attempts, d.next_attempt_at, d.seq FROM deliveries d
             WHERE d.endpoint_id = heads.endpoint_id AND d.status = 'pending' AND d.next_attempt_at <= heads.due_by
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
            EXISTS (SELECT 1 FROM relay_endpoints r WHERE r.endpoint_id = w.id) AS relay, d.next_attempt_at, d.seq,
            ${ORG_OFFSET}::text AS offset_ms
       FROM deliveries d
       JOIN events e ON e.id = d.event_id
       JOIN webhook_endpoints w ON w.id = d.endpoint_id
      WHERE d.endpoint_id = (SELECT $1) AND d.status = 'pending'
        AND d.next_attempt_at <= (SELECT $2)::timestamptz + ${ORG_OFFSET} * interval '1 millisecond'
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
  offset_ms?: string | number | null;
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
    offsetMs: Number(r.offset_ms ?? 0),
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
    `SELECT min(h.next_attempt_at - ${ORG_OFFSET} * interval '1 millisecond') AS at
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

/**
 * How many deliveries are due at the emulator-clock time `now` (each by its org's clock) and can be attempted by
 * some process sharing the database: every one but those of relay endpoints that no `svc listen` holds now.
 */
export async function countDueAnywhere(db: Database, now: Date): Promise<number> {
  const r = await db.query<{n: number}>(
    `SELECT count(*)::int AS n
       FROM deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id
      WHERE d.status = 'pending' AND d.next_attempt_at <= $1::timestamptz + ${ORG_OFFSET} * interval '1 millisecond'
        AND (NOT EXISTS (SELECT 1 FROM relay_endpoints r WHERE r.endpoint_id = w.id)
             OR EXISTS (SELECT 1 FROM relay_holders h WHERE h.endpoint_id = w.id AND h.expires_at > clock_timestamp()))`,
    [now],
  );
  return Number(r.rows[0]?.n ?? 0);
}
