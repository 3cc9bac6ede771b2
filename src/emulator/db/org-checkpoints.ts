// The org checkpoints: org_checkpoints names each (with the org's time then and how many rows of each table it
// holds), and checkpoint_<table> holds its copies of the org's rows of <table>, every column as it is, after the
// checkpoint's org and name (so every process sharing a PostgreSQL reads them). Taking copies the rows in one
// statement inside the database; a rewind writes back only what differs: no row travels to the emulator and back.
import {MAX_CHECKPOINTS_PER_ORG} from '../../definitions.js';
import {CHECKPOINT_TABLES, type CheckpointTable} from '../../schemas/checkpoints.js';
import type {Database, Queryable} from './database.js';
import {isoRequired} from './repository-support.js';
import {checkpointRowsTable} from './tables.js';

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
const SAVED_AS: Readonly<Partial<Record<CheckpointTable, Readonly<Record<string, string>>>>> = {
  deliveries: {locked_until: 'NULL', locked_by: 'NULL'},
};

/** SQL: the rows of checkpoint $2 of the org $1 in a checkpoint table, as `c`. */
const savedRows = (table: CheckpointTable) =>
  `FROM ${checkpointRowsTable(table)} c WHERE c.checkpoint_org_id = $1 AND c.checkpoint_name = $2`;

/** A table's columns in their order, and those of its primary key. */
interface TableShape {
  columns: readonly string[];
  key: readonly string[];
}

/** The statements of taking and restoring, made from the tables' columns as the database lists them. */
interface CheckpointStatements {
  /** $1 org, $2 name: copies the org's rows into the checkpoint tables and writes their counts beside its name. */
  take: string;
  /** $1 org, $2 name: each table's rows that differ from the checkpoint's, deleted, children first. */
  deleteChanged: readonly string[];
  /** $1 org, $2 name: whether the org holds fewer rows of each table than the checkpoint (one column a table). */
  short: string;
  /** $1 org, $2 name: each table's rows of the checkpoint the org does not hold, written, parents first. */
  insertMissing: Readonly<Record<CheckpointTable, string>>;
}

const statements = new WeakMap<object, Promise<CheckpointStatements>>();

/**
 * The checkpoint statements of the database `db`, read from its catalog once (through `via`, inside a transaction
 * the caller holds): the columns are named where the migrations made them, not again here. (A checkpoint table
 * missing a column of its table fails the statement.)
 */
function checkpointStatements(db: Queryable, via: Queryable = db): Promise<CheckpointStatements> {
  let made = statements.get(db);
  if (!made) {
    made = readShapes(via).then(makeStatements);
    made.catch(() => statements.delete(db));
    statements.set(db, made);
  }
  return made;
}

async function readShapes(db: Queryable): Promise<Record<CheckpointTable, TableShape>> {
  const {rows} = await db.query<{name: string; columns: string[]; key: string[] | null}>(
    `SELECT c.relname::text AS name,
            array_agg(a.attname::text ORDER BY a.attnum) AS columns,
            array_agg(a.attname::text ORDER BY a.attnum) FILTER (WHERE a.attnum = ANY(i.indkey::int2[])) AS key
       FROM pg_class c
       JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
       LEFT JOIN pg_index i ON i.indrelid = c.oid AND i.indisprimary
      WHERE c.oid = ANY($1::regclass[])
      GROUP BY c.relname`,
    [[...CHECKPOINT_TABLES]],
  );
  const shapes: Partial<Record<CheckpointTable, TableShape>> = {};
  for (const table of CHECKPOINT_TABLES) {
    const row = rows.find((r) => r.name === table);
    if (!row?.key?.length) throw new Error(`the table ${table} or its primary key is missing`);
    shapes[table] = {columns: row.columns, key: row.key};
  }
  return shapes as Record<CheckpointTable, TableShape>;
}

function makeStatements(shapes: Record<CheckpointTable, TableShape>): CheckpointStatements {
  const list = (columns: readonly string[], prefix = '') => columns.map((c) => `${prefix}${c}`).join(', ');
  const copies = CHECKPOINT_TABLES.map((table) => {
    const {columns} = shapes[table];
    const values = columns.map((c) => SAVED_AS[table]?.[c] ?? `t.${c}`).join(', ');
    return `copied_${table} AS (
      INSERT INTO ${checkpointRowsTable(table)} (checkpoint_org_id, checkpoint_name, ${list(columns)})
      SELECT $1, $2, ${values} ${ROWS_OF[table]} RETURNING 1)`;
  });
  const counts = CHECKPOINT_TABLES.map((t) => `'${t}', (SELECT count(*) FROM copied_${t})`).join(', ');
  const take = `WITH ${copies.join(',\n')}
    UPDATE org_checkpoints SET counts = jsonb_build_object(${counts})
     WHERE org_id = $1 AND name = $2
    RETURNING ${RECORD_COLUMNS}`;
  // A row the org holds that is not, column for column, one the checkpoint holds (EXCEPT compares NULLs as equal,
  // and hashes whole rows whatever the planner thinks of the row counts) goes; what is left of the org is then the
  // checkpoint's, and its rows missing by key are written.
  const deleteChanged = [...CHECKPOINT_TABLES].reverse().map((table) => {
    const {columns, key} = shapes[table];
    return `DELETE FROM ${table} WHERE (${list(key)}) IN (
      SELECT ${list(key)} FROM (
        SELECT ${list(columns, 't.')} ${ROWS_OF[table]}
        EXCEPT
        SELECT ${list(columns, 'c.')} ${savedRows(table)}) changed)`;
  });
  const sameKey = (key: readonly string[]) => key.map((k) => `t.${k} = c.${k}`).join(' AND ');
  const short = `SELECT ${CHECKPOINT_TABLES.map(
    (t) => `(SELECT count(*) ${ROWS_OF[t]}) < (SELECT count(*) ${savedRows(t)}) AS ${t}`,
  ).join(', ')}`;
  const insertMissing = Object.fromEntries(
    CHECKPOINT_TABLES.map((table) => {
      const {columns, key} = shapes[table];
      const sql = `INSERT INTO ${table} (${list(columns)})
        SELECT ${list(columns, 'c.')} ${savedRows(table)}
           AND NOT EXISTS (SELECT 1 FROM ${table} t WHERE ${sameKey(key)})`;
      return [table, sql];
    }),
  ) as Record<CheckpointTable, string>;
  return {take, deleteChanged, short, insertMissing};
}

const RECORD_COLUMNS = 'org_id, name, taken_at, clock_ms::text, own_clock, counts';

/** $1..$5 org, name, taken_at, clock_ms, own_clock: the checkpoint's name, unless taken or one too many. */
const NAME_SQL = `INSERT INTO org_checkpoints (org_id, name, taken_at, clock_ms, own_clock, counts)
  SELECT $1::text, $2::text, $3::timestamptz, $4::bigint, $5::boolean, '{}'::jsonb
   WHERE (SELECT count(*) FROM org_checkpoints x WHERE x.org_id = $1) < ${MAX_CHECKPOINTS_PER_ORG}
  ON CONFLICT (org_id, name) DO NOTHING
  RETURNING org_id`;

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
 * Saves every row of the org under `name`, copied in one statement (so at one moment), with the org's time then.
 * Undefined when the org has a checkpoint of that name already, or as many as it may keep.
 */
export async function saveCheckpoint(
  db: Database,
  input: {orgId: string; name: string; takenAt: Date; clockMs: number; ownClock: boolean},
): Promise<StoredCheckpoint | undefined> {
  const {take} = await checkpointStatements(db);
  return db.transaction(async (tx) => {
    const named = await tx.query(NAME_SQL, [
      input.orgId,
      input.name,
      input.takenAt,
      input.clockMs,
      input.ownClock,
    ]);
    if (named.rows.length === 0) return undefined;
    const {rows} = await tx.query<CheckpointRow>(take, [input.orgId, input.name]);
    return rows[0] ? toStored(rows[0]) : undefined;
  });
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
       SELECT c.id, false ${savedRows('webhook_endpoints')}) ids
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
 * Puts the org's rows back as the checkpoint holds them, in the caller's transaction: each row of the org that
 * differs from the checkpoint's goes (deliveries and their attempts first), then the checkpoint's rows the org no
 * longer holds are written, each table after those it refers to. Rows the org still holds as saved stay as they
 * are, so a rewind costs what changed since the checkpoint. `db` is the database `tx` is a transaction of.
 */
export async function restoreCheckpointRows(
  db: Queryable,
  tx: Queryable,
  orgId: string,
  name: string,
): Promise<void> {
  const {deleteChanged, short, insertMissing} = await checkpointStatements(db, tx);
  for (const sql of deleteChanged) await tx.query(sql, [orgId, name]);
  // What the org holds now is all the checkpoint's (a delete may have taken rows that were, through a foreign
  // key): a table with as many rows as the checkpoint's misses none, and needs no search for them.
  const counted = (await tx.query<Record<CheckpointTable, boolean>>(short, [orgId, name])).rows[0];
  for (const table of CHECKPOINT_TABLES) {
    if (counted?.[table] !== false) await tx.query(insertMissing[table], [orgId, name]);
  }
}
