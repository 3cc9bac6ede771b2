// The table of org checkpoints (org_checkpoints): one org's rows at one moment, kept as JSON inside the database
// (so every process sharing a PostgreSQL reads them), and putting them back. Taking and restoring are each one
// statement per table run by the database itself: no row travels to the emulator and back.
import {MAX_CHECKPOINTS_PER_ORG} from '../../definitions.js';
import {CHECKPOINT_TABLES, type CheckpointTable} from '../../schemas/checkpoints.js';
import type {Queryable} from './database.js';
import {isoRequired} from './repository-support.js';

// The tables are named once (src/schemas/checkpoints.ts), each after those it refers to. Deliveries are found
// through their endpoints (they keep no index on their org), their attempts through them. The org's clock is
// kept beside the rows (org_checkpoints.clock_ms), and its people stay as they are, as a reset leaves them.

const ENDPOINTS_OF_ORG = 'ARRAY(SELECT w.id FROM webhook_endpoints w WHERE w.org_id = $1)';

/** SQL: the rows of the org $1 in each table. */
const ROWS_OF: Readonly<Record<CheckpointTable, string>> = {
  api_keys: 'FROM api_keys t WHERE t.org_id = $1',
  webhook_endpoints: 'FROM webhook_endpoints t WHERE t.org_id = $1',
  relay_endpoints: 'FROM relay_endpoints t WHERE t.org_id = $1',
  sandboxes: 'FROM sandboxes t WHERE t.org_id = $1',
  sandbox_links: 'FROM sandbox_links t WHERE t.org_id = $1',
  events: 'FROM events t WHERE t.org_id = $1',
  deliveries: `FROM deliveries t WHERE t.endpoint_id = ANY(${ENDPOINTS_OF_ORG})`,
  delivery_attempts: `FROM delivery_attempts t
    WHERE t.delivery_id IN (SELECT d.id FROM deliveries d WHERE d.endpoint_id = ANY(${ENDPOINTS_OF_ORG}))`,
};

/**
 * A delivery's lease is the state of the worker holding it then, not of the org: a rewound delivery is held by
 * nobody, so it is due at once when its time has come.
 */
const ROW_OF: Readonly<Partial<Record<CheckpointTable, string>>> = {
  deliveries: "to_jsonb(t) - 'locked_until' - 'locked_by'",
};

const RECORD_COLUMNS = 'org_id, name, taken_at, clock_ms::text, own_clock, counts';

const TAKE_SQL = `INSERT INTO org_checkpoints (org_id, name, taken_at, clock_ms, own_clock, counts, rows)
  SELECT $1::text, $2::text, $3::timestamptz, $4::bigint, $5::boolean, c.counts, r.rows
    FROM (SELECT jsonb_build_object(${CHECKPOINT_TABLES.map(
      (t) => `'${t}', (SELECT coalesce(jsonb_agg(${ROW_OF[t] ?? 't'}), '[]'::jsonb) ${ROWS_OF[t]})`,
    ).join(', ')}) AS rows) r
    CROSS JOIN LATERAL (SELECT jsonb_object_agg(e.key, jsonb_array_length(e.value)) AS counts
                          FROM jsonb_each(r.rows) e) c
   WHERE (SELECT count(*) FROM org_checkpoints x WHERE x.org_id = $1) < ${MAX_CHECKPOINTS_PER_ORG}
  ON CONFLICT (org_id, name) DO NOTHING
  RETURNING ${RECORD_COLUMNS}`;

interface CheckpointRow {
  org_id: string;
  name: string;
  taken_at: Date | string;
  clock_ms: string;
  own_clock: boolean;
  counts: Record<string, number> | string;
}

/** A checkpoint as stored: the org's time then (epoch milliseconds) and how many rows of each table it holds. */
export interface StoredCheckpoint {
  orgId: string;
  name: string;
  takenAt: string;
  clockMs: number;
  ownClock: boolean;
  counts: Record<CheckpointTable, number>;
}

function toStored(r: CheckpointRow): StoredCheckpoint {
  const counts = typeof r.counts === 'string' ? (JSON.parse(r.counts) as Record<string, number>) : r.counts;
  return {
    orgId: r.org_id,
    name: r.name,
    takenAt: isoRequired(r.taken_at),
    clockMs: Number(r.clock_ms),
    ownClock: r.own_clock,
    counts: Object.fromEntries(CHECKPOINT_TABLES.map((t) => [t, Number(counts[t] ?? 0)])) as Record<
      CheckpointTable,
      number
    >,
  };
}

/**
 * Saves every row of the org under `name`, read in one statement (so at one moment), with the org's time then.
 * Undefined when the org has a checkpoint of that name already, or as many as it may keep.
 */
export async function saveCheckpoint(
  q: Queryable,
  input: {orgId: string; name: string; takenAt: Date; clockMs: number; ownClock: boolean},
): Promise<StoredCheckpoint | undefined> {
  const {rows} = await q.query<CheckpointRow>(TAKE_SQL, [
    input.orgId,
    input.name,
    input.takenAt,
    input.clockMs,
    input.ownClock,
  ]);
  return rows[0] ? toStored(rows[0]) : undefined;
}

export async function countCheckpoints(q: Queryable, orgId: string): Promise<number> {
  const {rows} = await q.query<{n: number}>(
    'SELECT count(*)::int AS n FROM org_checkpoints WHERE org_id = $1',
    [orgId],
  );
  return Number(rows[0]?.n ?? 0);
}

export async function findCheckpoint(
  q: Queryable,
  orgId: string,
  name: string,
): Promise<StoredCheckpoint | undefined> {
  const {rows} = await q.query<CheckpointRow>(
    `SELECT ${RECORD_COLUMNS} FROM org_checkpoints WHERE org_id = $1 AND name = $2`,
    [orgId, name],
  );
  return rows[0] ? toStored(rows[0]) : undefined;
}

/** The org's checkpoints, oldest first. */
export async function listCheckpoints(q: Queryable, orgId: string): Promise<StoredCheckpoint[]> {
  const {rows} = await q.query<CheckpointRow>(
    `SELECT ${RECORD_COLUMNS} FROM org_checkpoints WHERE org_id = $1 ORDER BY seq`,
    [orgId],
  );
  return rows.map(toStored);
}

export async function deleteCheckpoint(
  q: Queryable,
  orgId: string,
  name: string,
): Promise<StoredCheckpoint | undefined> {
  const {rows} = await q.query<CheckpointRow>(
    `DELETE FROM org_checkpoints WHERE org_id = $1 AND name = $2 RETURNING ${RECORD_COLUMNS}`,
    [orgId, name],
  );
  return rows[0] ? toStored(rows[0]) : undefined;
}

/** The endpoints a rewind touches: the org's now and those the checkpoint brings back, each saying which it is. */
export interface RewoundEndpoint {
  id: string;
  /** The org has it now. */
  current: boolean;
  /** The checkpoint holds it: it is there after the rewind. */
  kept: boolean;
}

/**
 * The endpoints a rewind touches; with `lock`, locked in the caller's transaction, so that an event recorded
 * meanwhile adds no delivery the rewind would not see.
 */
export async function rewoundEndpoints(
  q: Queryable,
  orgId: string,
  name: string,
  options: {lock?: boolean} = {},
): Promise<RewoundEndpoint[]> {
  const {rows} = await q.query<{id: string; current: boolean; kept: boolean}>(
    `SELECT id, bool_or(current) AS current, bool_or(NOT current) AS kept FROM (
       SELECT w.id, true AS current FROM webhook_endpoints w WHERE w.org_id = $1
       UNION ALL
       SELECT e->>'id', false FROM org_checkpoints c, jsonb_array_elements(c.rows->'webhook_endpoints') e
        WHERE c.org_id = $1 AND c.name = $2) ids
      GROUP BY id ORDER BY id`,
    [orgId, name],
  );
  if (options.lock) {
    await q.query('SELECT id FROM webhook_endpoints WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE', [
      rows.map((r) => r.id),
    ]);
  }
  return rows;
}

/** Which endpoints of the org have deliveries a worker holds under a live lease, and whose workers they are. */
export async function heldDeliveries(
  q: Queryable,
  orgId: string,
  realNow: Date,
): Promise<{endpointId: string; holder: string}[]> {
  const {rows} = await q.query<{endpoint_id: string; holder: string}>(
    `SELECT DISTINCT endpoint_id, locked_by AS holder FROM deliveries
      WHERE endpoint_id = ANY(${ENDPOINTS_OF_ORG}) AND locked_by IS NOT NULL AND locked_until > $2`,
    [orgId, realNow],
  );
  return rows.map((r) => ({endpointId: r.endpoint_id, holder: r.holder}));
}

/**
 * Puts the org's rows back as the checkpoint holds them, in the caller's transaction: every row of the org goes
 * (deliveries and their attempts first, through the org's endpoints), then the checkpoint's rows are written, each
 * table after those it refers to.
 */
export async function restoreCheckpointRows(q: Queryable, orgId: string, name: string): Promise<void> {
  await q.query(`DELETE FROM deliveries WHERE endpoint_id = ANY(${ENDPOINTS_OF_ORG})`, [orgId]);
  await q.query('DELETE FROM events WHERE org_id = $1', [orgId]);
  await q.query('DELETE FROM sandbox_links WHERE org_id = $1', [orgId]);
  await q.query('DELETE FROM sandboxes WHERE org_id = $1', [orgId]);
  // Relay endpoints go with their endpoints.
  await q.query('DELETE FROM webhook_endpoints WHERE org_id = $1', [orgId]);
  await q.query('DELETE FROM api_keys WHERE org_id = $1', [orgId]);
  for (const table of CHECKPOINT_TABLES) {
    await q.query(
      `INSERT INTO ${table}
       SELECT r.* FROM org_checkpoints c, jsonb_populate_recordset(NULL::${table}, c.rows->'${table}') r
        WHERE c.org_id = $1 AND c.name = $2`,
      [orgId, name],
    );
  }
}
