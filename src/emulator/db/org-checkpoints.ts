// The org checkpoints: org_checkpoints names each (with the org's time then and how many rows of each table it
// holds). A checkpoint is kept one of two ways, both in the database (so every process sharing a PostgreSQL reads
// them):
//   - as a mark in the journal. While an org has such a checkpoint, migration 018's triggers write each row a
//     statement changes to journal_<table> first, as it was; taking the checkpoint is taking the journal's next
//     number (and counting the org's rows), and a rewind puts back each row changed since as its first entry after
//     that number holds it, which costs what changed since. On a PostgreSQL other processes write too, the number is
//     taken while no transaction writes the tables (holdWriters), so none is journaled on both sides of it.
//   - as a copy: checkpoint_<table> holds the org's rows of <table>, every column as it is, after the checkpoint's
//     org and name, copied in one statement (one snapshot), and a rewind writes back only what differs. A
//     checkpoint is taken as a copy when a PostgreSQL's writes did not pause for it in time, and one in the journal
//     that a rewind to an earlier one goes back through is made a copy then, on the way.
// No row travels to the emulator and back.
import {MAX_CHECKPOINTS_PER_ORG} from '../../definitions.js';
import {CHECKPOINT_TABLES, type CheckpointTable} from '../../schemas/checkpoints.js';
import {
  holdWriters,
  JOURNAL_OF,
  type JournalMark,
  type JournalStatements,
  journalStatements,
  markJournalOn,
  switchJournalOn,
  unjournal,
  WRITERS_TRIES,
  writersTookTooLong,
} from './checkpoint-journal.js';
import {
  columnList as list,
  ENDPOINTS_OF_ORG,
  holdsMore,
  ROWS_OF,
  readShapes,
  SAVED_AS,
  type TableShape,
} from './checkpoint-shapes.js';
import type {Database, Queryable} from './database.js';
import {isoRequired} from './repository-support.js';
import {checkpointRowsTable, journalTable} from './tables.js';

/** SQL: the rows of checkpoint $2 of the org $1 in a checkpoint table, as `c`. */
const savedRows = (table: CheckpointTable) =>
  `FROM ${checkpointRowsTable(table)} c WHERE c.checkpoint_org_id = $1 AND c.checkpoint_name = $2`;

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
  /**
   * $1 org, $2 name: counts the org's rows of each table and writes them beside its name, with whether any of its
   * deliveries is held under a lease (leases_held), in the one pass over them.
   */
  count: string;
  /** The statements of checkpoints kept in the journal. */
  journal: JournalStatements;
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

function makeStatements(shapes: Record<CheckpointTable, TableShape>): CheckpointStatements {
  const copies = CHECKPOINT_TABLES.map((table) => {
    const {columns} = shapes[table];
    const values = columns.map((c) => SAVED_AS[table]?.[c] ?? `t.${c}`).join(', ');
    return `copied_${table} AS (
      INSERT INTO ${checkpointRowsTable(table)} (checkpoint_org_id, checkpoint_name, ${list(columns)})
      SELECT $1, $2, ${values} ${ROWS_OF(table)} RETURNING 1)`;
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
        SELECT ${list(columns, 't.')} ${ROWS_OF(table)}
        EXCEPT
        SELECT ${list(columns, 'c.')} ${savedRows(table)}) changed)`;
  });
  const sameKey = (key: readonly string[]) => key.map((k) => `t.${k} = c.${k}`).join(' AND ');
  const short = `SELECT ${CHECKPOINT_TABLES.map(
    (t) => `(SELECT count(*) ${ROWS_OF(t)}) < (SELECT count(*) ${savedRows(t)}) AS ${t}`,
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
  const counted = CHECKPOINT_TABLES.map(
    (t) => `'${t}', ${t === 'deliveries' ? 'd.n' : `(SELECT count(*) ${ROWS_OF(t)})`}`,
  ).join(', ');
  const count = `UPDATE org_checkpoints SET (counts, leases_held) = (
      SELECT jsonb_build_object(${counted}), d.held
        FROM (SELECT count(*) AS n, coalesce(bool_or(${holdsMore('deliveries')}), false) AS held
                ${ROWS_OF('deliveries')}) d)
     WHERE org_id = $1 AND name = $2
    RETURNING ${RECORD_COLUMNS}`;
  return {take, deleteChanged, short, insertMissing, count, journal: journalStatements(shapes)};
}

const RECORD_COLUMNS = 'org_id, name, taken_at, clock_ms::text, own_clock, counts';

/**
 * $1..$6 org, name, taken_at, clock_ms, own_clock, in the journal: the checkpoint's name (and, for one kept in the
 * journal, the journal's next number), unless taken or one too many.
 */
const NAME_SQL = `INSERT INTO org_checkpoints (org_id, name, taken_at, clock_ms, own_clock, counts, journal_seq)
  SELECT $1::text, $2::text, $3::timestamptz, $4::bigint, $5::boolean, '{}'::jsonb,
         CASE WHEN $6::boolean THEN nextval('checkpoint_journal_seq') END
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

/** What a checkpoint is taken of: the org, its name, the real time and the org's own time then. */
interface CheckpointInput {
  orgId: string;
  name: string;
  takenAt: Date;
  clockMs: number;
  ownClock: boolean;
}

/**
 * Saves the org under `name` with its time then, as a mark in the journal; on a shared PostgreSQL whose writes did
 * not pause for it (holdWriters) in WRITERS_TRIES tries, as a copy of every row in one statement (so at one
 * moment). Undefined when the org has a checkpoint of that name already, or as many as it may keep.
 */
export async function saveCheckpoint(
  db: Database,
  input: CheckpointInput,
): Promise<StoredCheckpoint | undefined> {
  const statements = await checkpointStatements(db);
  for (let tries = 1; ; tries++) {
    try {
      return await saveOnce(db, statements, input, true);
    } catch (err) {
      if (!writersTookTooLong(err)) throw err;
      if (tries === WRITERS_TRIES) return saveOnce(db, statements, input, false);
    }
  }
}

async function saveOnce(
  db: Database,
  {take, count}: CheckpointStatements,
  input: CheckpointInput,
  journaled: boolean,
): Promise<StoredCheckpoint | undefined> {
  const saved = await db.transaction(async (tx) => {
    if (journaled) await (db.kind === 'postgres' ? holdWriters(db, tx) : switchJournalOn(db, tx));
    const named = await tx.query(NAME_SQL, [
      input.orgId,
      input.name,
      input.takenAt,
      input.clockMs,
      input.ownClock,
      journaled,
    ]);
    if (named.rows.length === 0) return undefined;
    const {rows} = await tx.query<CheckpointRow>(journaled ? count : take, [input.orgId, input.name]);
    return rows[0] ? toStored(rows[0]) : undefined;
  });
  // Committed: the triggers are on for good.
  if (journaled) markJournalOn(db);
  return saved;
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
 * The endpoints a rewind touches, for the checkpoint's journal mark (`mark`, as journalMark read it; undefined for
 * a copy); with `lock`, locked in the caller's transaction, so that an event recorded meanwhile adds no delivery
 * the rewind would not see.
 */
export async function rewoundEndpoints(
  q: Queryable,
  orgId: string,
  name: string,
  mark: JournalMark | undefined,
  options: {lock?: boolean} = {},
): Promise<RewoundEndpoint[]> {
  const seq = mark?.seq;
  // In the journal, an endpoint the checkpoint holds is one the org holds now that was not made since, or one whose
  // first entry since is not its making; as a copy, one the copy holds.
  const {rows} = await q.query<{id: string; current: boolean; kept: boolean}>(
    seq === undefined
      ? `SELECT id, bool_or(current) AS current, bool_or(NOT current) AS kept FROM (
           SELECT w.id, true AS current FROM webhook_endpoints w WHERE w.org_id = $1
           UNION ALL
           SELECT c.id, false ${savedRows('webhook_endpoints')}) ids
          GROUP BY id ORDER BY id`
      : `WITH first AS (
           SELECT DISTINCT ON (j.id) j.id, j.journal_op FROM ${journalTable('webhook_endpoints')} j
            WHERE ${JOURNAL_OF.webhook_endpoints} ORDER BY j.id, j.journal_seq)
         SELECT id, bool_or(current) AS current, bool_or(kept) AS kept FROM (
           SELECT w.id, true AS current, true AS kept FROM webhook_endpoints w
            WHERE w.org_id = $1 AND w.id NOT IN (SELECT f.id FROM first f)
           UNION ALL
           SELECT w.id, true, false FROM webhook_endpoints w JOIN first f USING (id) WHERE w.org_id = $1
           UNION ALL
           SELECT f.id, false, f.journal_op <> 'I' FROM first f) ids
          GROUP BY id ORDER BY id`,
    seq === undefined ? [orgId, name] : [orgId, seq],
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
 * Puts the org's rows back as the checkpoint holds them, in the caller's transaction (`db` is the database `tx` is
 * a transaction of; `mark` the checkpoint's journal mark, read in it).
 *   - In the journal: each row changed since goes back to its first entry since, and rows made since go, each
 *     table after those it refers to; the entries used go, and what the rewind writes is not journaled (the org is
 *     now as it was at that number, which is what the earlier checkpoints' entries start from). A later checkpoint
 *     in the journal is passed on the way back: the org is put back to it first and copied.
 *   - As a copy: each row of the org that differs from the checkpoint's goes (deliveries and their attempts first),
 *     then the checkpoint's rows the org no longer holds are written, parents first. Rows the org still holds as
 *     saved stay as they are. What this writes is journaled for the org's checkpoints in the journal.
 * Either way a rewind costs what changed since the checkpoint. Resolves to the count of rows it deleted, changed or
 * wrote, the org's and the journal's (each leaves a dead row behind, as a recorded attempt does).
 */
export async function restoreCheckpointRows(
  db: Queryable,
  tx: Queryable,
  orgId: string,
  name: string,
  mark: JournalMark | undefined,
): Promise<number> {
  const statements = await checkpointStatements(db, tx);
  if (mark === undefined) return restoreCopy(statements, tx, orgId, name);
  const {seq} = mark;
  let rows = 0;
  await tx.query(`SELECT set_config('svc.journal_off', 'on', true)`);
  const later = await tx.query<{name: string; seq: string}>(
    `SELECT name, journal_seq::text AS seq FROM org_checkpoints
      WHERE org_id = $1 AND journal_seq > $2::bigint ORDER BY journal_seq DESC`,
    [orgId, seq],
  );
  for (const checkpoint of later.rows) {
    // No lease is handed back on the way: the copy keeps none, and the rewind to `seq` below hands back those held
    // at that number (and puts back each row changed since without one).
    rows += await unjournal(statements.journal, tx, orgId, checkpoint.seq, {release: false});
    // Copied as the org now is, which is that checkpoint; from now on it is a copy (its entries are used).
    await tx.query(statements.take, [orgId, checkpoint.name]);
    await tx.query('UPDATE org_checkpoints SET journal_seq = NULL WHERE org_id = $1 AND name = $2', [
      orgId,
      checkpoint.name,
    ]);
  }
  rows += await unjournal(statements.journal, tx, orgId, seq, {release: mark.leasesHeld});
  await tx.query(`SELECT set_config('svc.journal_off', '', true)`);
  return rows;
}

async function restoreCopy(
  {deleteChanged, short, insertMissing}: CheckpointStatements,
  tx: Queryable,
  orgId: string,
  name: string,
): Promise<number> {
  let rows = 0;
  for (const sql of deleteChanged) rows += (await tx.query(sql, [orgId, name])).rowCount;
  // What the org holds now is all the checkpoint's (a delete may have taken rows that were, through a foreign
  // key): a table with as many rows as the checkpoint's misses none, and needs no search for them.
  const counted = (await tx.query<Record<CheckpointTable, boolean>>(short, [orgId, name])).rows[0];
  for (const table of CHECKPOINT_TABLES) {
    if (counted?.[table] !== false) rows += (await tx.query(insertMissing[table], [orgId, name])).rowCount;
  }
  return rows;
}
