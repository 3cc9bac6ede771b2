// SQL of attempts: the engine's batched record of scheduled attempts (the record step), one delivery's detail
// (the delivery with its event, its attempts), and a resend's lease and record.
import type {AttemptTrigger, DeliveryStatus} from '../../definitions.js';
import {type DeliveryAttempt, DeliveryAttemptSchema} from '../../schemas/emulator.js';
import type {Database, Queryable} from '../db/database.js';
import type {DeliveryRow} from '../db/deliveries.js';
import {orgOffsetSql} from '../db/org-clocks.js';
import type {PreparedStatements, Statement} from './statements.js';

export interface AttemptRecord {
  deliveryId: string;
  /** Its delivery's event: the word that the attempt was recorded names it, for whoever waits for the event. */
  eventId: string;
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
                                      trigger, signature_t, org_id)
       -- A delivery deleted meanwhile (its endpoint removed, retention) is skipped, not a failed batch.
       SELECT v.delivery_id, v.attempt, v.started_at, v.duration_ms, v.status_code, v.error, v.response_body, v.trigger,
              v.signature_t, kept.org_id
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

/** A delivery's row as its record is read (see toDeliveryRecord), with its endpoint and its event's bytes. */
export interface DeliveryWithEventRow extends DeliveryRow {
  endpoint_id: string;
  body: string;
}

/** An attempt's record (src/schemas) as the driver reads it: a Date, and a bigint that may come back as text. */
export type AttemptRow = Omit<DeliveryAttempt, 'started_at' | 'signature_t'> & {
  started_at: Date | string;
  signature_t: string | number | null;
};

export interface ResendTargetRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  body: string;
  url: string;
  secret_ciphertext: string;
  relay: boolean;
  /** How far the delivery's org clock runs ahead of the emulator's: a resend is made at the org's time. */
  offset_ms: string | number;
}

/**
 * The attempt columns of a delivery's detail: the fields of an attempt's record (src/schemas), which the table's
 * columns are named after, as one JSON object of each attempt row `a`.
 */
const ATTEMPT_JSON = `json_build_object(${Object.keys(DeliveryAttemptSchema.shape)
  .map((f) => `'${f}', a.${f}`)
  .join(', ')})`;

/** The delivery, its event's bytes and its attempts (oldest first), as one statement reads them. */
export interface DeliveryDetailRow extends DeliveryWithEventRow {
  /** JSON: a timestamp is text there, and a driver may hand the whole array over unparsed. */
  attempts_made: AttemptRow[] | string;
}

/**
 * The delivery with the bytes of its event and every attempt, if it was created after `since` (emulator-clock time)
 * as its org's clock reads it: an org with a clock of its own keeps what its own time says, as the purge does. One
 * statement, not one for the delivery and one for its attempts: a wait for a delivery (test suites, scenario runs)
 * ends with this read, and each statement is a trip to the database.
 */
export async function findDeliveryDetail(
  q: Queryable,
  deliveryId: string,
  since: Date,
): Promise<DeliveryDetailRow | undefined> {
  const found = await q.query<DeliveryDetailRow>(
    `SELECT d.id, d.endpoint_id, d.event_id, d.event_type, d.status, d.attempts, d.created_at, d.last_attempt_at,
            d.next_attempt_at, d.last_status_code, e.body,
            (SELECT coalesce(json_agg(${ATTEMPT_JSON} ORDER BY a.attempt), '[]'::json)
               FROM delivery_attempts a WHERE a.delivery_id = d.id) AS attempts_made
       FROM deliveries d JOIN events e ON e.id = d.event_id
      WHERE d.id = $1 AND d.created_at > $2::timestamptz + ${orgOffsetSql('d.org_id')} * interval '1 millisecond'`,
    [deliveryId, since],
  );
  return found.rows[0];
}

/** What sending the delivery again needs: its event's bytes and its endpoint's address and secret. */
export async function findResendTarget(
  q: Queryable,
  deliveryId: string,
): Promise<ResendTargetRow | undefined> {
  const found = await q.query<ResendTargetRow>(
    `SELECT d.id, d.endpoint_id, d.event_id, d.event_type, e.body, w.url, w.secret_ciphertext,
            EXISTS (SELECT 1 FROM relay_endpoints r WHERE r.endpoint_id = w.id) AS relay,
            ${orgOffsetSql('d.org_id')}::text AS offset_ms
       FROM deliveries d JOIN events e ON e.id = d.event_id JOIN webhook_endpoints w ON w.id = d.endpoint_id
      WHERE d.id = $1`,
    [deliveryId],
  );
  return found.rows[0];
}

/**
 * Leases the delivery to `owner` until `until` unless someone holds it (real time, like every lease), and
 * returns its attempt count; `held` when another holds it, `gone` when it does not exist.
 */
export async function leaseForResend(
  q: Queryable,
  o: {deliveryId: string; now: Date; until: Date; owner: string},
): Promise<{attempts: number} | 'held' | 'gone'> {
  const r = await q.query<{attempts: number}>(
    `UPDATE deliveries SET locked_until = $3, locked_by = $4
      WHERE id = $1 AND (locked_until IS NULL OR locked_until <= $2)
      RETURNING attempts`,
    [o.deliveryId, o.now, o.until, o.owner],
  );
  const row = r.rows[0];
  if (row) return {attempts: Number(row.attempts)};
  const exists = await q.query('SELECT 1 FROM deliveries WHERE id = $1', [o.deliveryId]);
  return exists.rows.length === 0 ? 'gone' : 'held';
}

export async function releaseResendLease(q: Queryable, deliveryId: string, owner: string): Promise<void> {
  await q.query(
    'UPDATE deliveries SET locked_until = NULL, locked_by = NULL WHERE id = $1 AND locked_by = $2',
    [deliveryId, owner],
  );
}

/**
 * An attempt made outside the schedule, as recorded: the engine's attempt record without the schedule's waits;
 * `trigger` is manual (a resend) unless chaos made it. `succeeded` moves the delivery to succeeded (a resend
 * answered 2xx); without it the delivery's status and next attempt stay as they are.
 */
export type ResendRecord = Omit<
  AttemptRecord,
  'eventId' | 'finishedAt' | 'status' | 'nextAttemptAt' | 'trigger'
> & {
  trigger?: AttemptTrigger;
  succeeded?: boolean;
};

/** Moves a delivery's first attempt later (delivery chaos) and frees its lease; nothing is attempted or counted. */
export async function postponeFirstAttempt(q: Queryable, deliveryId: string, dueAt: Date): Promise<void> {
  await q.query(
    `UPDATE deliveries SET next_attempt_at = $2, locked_until = NULL, locked_by = NULL
      WHERE id = $1 AND status = 'pending'`,
    [deliveryId, dueAt],
  );
}

/**
 * Records a manual attempt and counts it on the delivery (attempts, manual_attempts, last attempt and code),
 * freeing the lease. With `succeeded` (the attempt was answered 2xx in time) the delivery is succeeded and its
 * schedule ends, as after any such attempt; otherwise its status and next_attempt_at stay. One statement, so all
 * happens or none. The delivery's status after it; undefined when the delivery is gone or its count moved meanwhile.
 */
export async function recordResend(q: Queryable, r: ResendRecord): Promise<DeliveryStatus | undefined> {
  const result = await q.query<{status: DeliveryStatus}>(
    `WITH moved AS (
       UPDATE deliveries
          SET attempts = $2, manual_attempts = manual_attempts + 1, last_attempt_at = $3, last_status_code = $4,
              status = CASE WHEN $10::boolean THEN 'succeeded' ELSE status END,
              next_attempt_at = CASE WHEN $10::boolean THEN NULL ELSE next_attempt_at END,
              locked_until = NULL, locked_by = NULL
        WHERE id = $1 AND attempts = $2 - 1
        RETURNING id, status, org_id),
     inserted AS (
       INSERT INTO delivery_attempts
              (delivery_id, attempt, started_at, duration_ms, status_code, error, response_body, trigger, signature_t,
               org_id)
       SELECT id, $2, $3, $5, $4, $6, $7, $9, $8, org_id FROM moved)
     SELECT status FROM moved`,
    [
      r.deliveryId,
      r.attempt,
      r.startedAt,
      r.statusCode,
      r.durationMs,
      // PostgreSQL text cannot hold NUL.
      r.error?.replaceAll('\u0000', '') ?? null,
      r.responseBody?.replaceAll('\u0000', '') ?? null,
      r.signatureT,
      r.trigger ?? 'manual',
      r.succeeded ?? false,
    ],
  );
  return result.rows[0]?.status;
}
