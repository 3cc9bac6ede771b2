// Checkpoints kept as a mark in the journal (migration 018): while an org has one, the triggers write each row a
// statement changes to journal_<table> first, as it was. Taking such a checkpoint is taking the journal's next
// number; a rewind puts back each row changed since as its first entry after that number holds it, deletes the rows
// made since, and forgets the entries it used, which costs what the org did since, not what it holds.
import {CHECKPOINT_TABLES, type CheckpointTable} from '../../schemas/checkpoints.js';
import {holdsMore, columnList as list, OF_ORG, SAVED_AS, type TableShape} from './checkpoint-shapes.js';
import type {Queryable} from './database.js';
import {journalTable} from './tables.js';

/**
 * SQL: the journal entries `j` of the org $1 after the number $2. An attempt deleted with its delivery was written
 * with no org (migration 018): it is the org's when the org's journal holds that delivery's deletion after $2.
 */
export const JOURNAL_OF: Readonly<Record<CheckpointTable, string>> = Object.fromEntries(
  CHECKPOINT_TABLES.map((table) => {
    const own = 'j.journal_org_id = $1 AND j.journal_seq > $2::bigint';
    const sql =
      table === 'delivery_attempts'
        ? `j.journal_seq > $2::bigint AND (j.journal_org_id = $1 OR (j.journal_org_id IS NULL AND j.delivery_id IN (
             SELECT jd.id FROM ${journalTable('deliveries')} jd
              WHERE jd.journal_org_id = $1 AND jd.journal_seq > $2::bigint)))`
        : own;
    return [table, sql];
  }),
) as Record<CheckpointTable, string>;

/** The statements of checkpoints kept in the journal, made from the tables' columns as the database lists them. */
export interface JournalStatements {
  /** $1 org, $2 journal number: whether the journal holds entries of each table after it (one column a table). */
  journaled: string;
  /** $1 org, $2 journal number: the statements that put one table back as it was at that number (unjournal). */
  unjournal: Readonly<Record<CheckpointTable, Unjournal>>;
  /**
   * $1 org: the org's rows as a checkpoint holds them where they hold more (a delivery's lease); needed only for
   * rows held so when the checkpoint was taken (its leases_held), as every change since is put back without it.
   */
  release: readonly string[];
}

/** Putting one table of an org back as it was at a journal number, in four statements. */
export interface Unjournal {
  /** The rows made since, deleted (run children first). */
  deleteMade: string;
  /** The rows there then and now, each set back to its first entry since. */
  updateChanged: string;
  /** The rows there then and gone now, written back (run parents first). */
  insertGone: string;
  /** The entries since, which the three statements used (run children first: an attempt's refer to its delivery's). */
  forget: string;
}

/** The journal's statements for the tables as the database lists their columns and keys. */
export function journalStatements(shapes: Record<CheckpointTable, TableShape>): JournalStatements {
  const journaled = `SELECT ${CHECKPOINT_TABLES.map(
    (t) => `EXISTS (SELECT 1 FROM ${journalTable(t)} j WHERE ${JOURNAL_OF[t]}) AS ${t}`,
  ).join(', ')}`;
  const unjournal = Object.fromEntries(
    CHECKPOINT_TABLES.map((table) => [table, unjournalStatements(table, shapes[table])]),
  ) as Record<CheckpointTable, Unjournal>;
  const release = Object.entries(SAVED_AS).map(([table, saved]) => {
    const set = Object.entries(saved ?? {});
    return `UPDATE ${table} t SET ${set.map(([c, v]) => `${c} = ${v}`).join(', ')}
      WHERE ${OF_ORG[table as CheckpointTable]} AND ${holdsMore(table as CheckpointTable)}`;
  });
  return {journaled, unjournal, release};
}

function unjournalStatements(table: CheckpointTable, {columns, key}: TableShape): Unjournal {
  // Each row's first entry after the number: the row as it was then (none when the entry is its insert).
  const first = `(SELECT DISTINCT ON (${list(key, 'j.')}) j.* FROM ${journalTable(table)} j
      WHERE ${JOURNAL_OF[table]} ORDER BY ${list(key, 'j.')}, j.journal_seq) f`;
  const sameKey = key.map((k) => `t.${k} = f.${k}`).join(' AND ');
  const value = (c: string) => SAVED_AS[table]?.[c] ?? `f.${c}`;
  const settable = columns.filter((c) => !key.includes(c));
  return {
    deleteMade: `DELETE FROM ${table} t USING ${first} WHERE f.journal_op = 'I' AND ${sameKey}`,
    updateChanged: `UPDATE ${table} t SET ${settable.map((c) => `${c} = ${value(c)}`).join(', ')}
      FROM ${first} WHERE f.journal_op <> 'I' AND ${sameKey}`,
    insertGone: `INSERT INTO ${table} (${list(columns)})
      SELECT ${columns.map(value).join(', ')} FROM ${first}
       WHERE f.journal_op <> 'I' AND NOT EXISTS (SELECT 1 FROM ${table} t WHERE ${sameKey})`,
    forget: `DELETE FROM ${journalTable(table)} j WHERE ${JOURNAL_OF[table]}`,
  };
}

/** The databases whose journal triggers this process has seen switched on. */
const journalOn = new WeakSet<object>();

/** The journal's triggers of `db` are on for good: a transaction that switched them on has committed. */
export function markJournalOn(db: object): void {
  journalOn.add(db);
}

/**
 * How long a checkpoint on a shared PostgreSQL waits for the transactions writing the org's tables to end (holdWriters),
 * how many times it tries, and then it is taken as a copy instead.
 */
const WRITERS_WAIT = '100ms';
export const WRITERS_TRIES = 3;

/**
 * Readies the caller's transaction to take the journal's next number on a PostgreSQL other processes write too: the
 * triggers on, and every table a checkpoint holds locked against writes (SHARE) until it commits. The lock waits for
 * each transaction that wrote one of them to end, and new writes wait for the commit (a few milliseconds: the
 * number and the counts), so no transaction has journal entries on both sides of the number, and every write after
 * it sees the checkpoint and is journaled. Tables are locked parents first, the order writes take them in; a wait
 * that outlasts WRITERS_WAIT (a write holding a child while it waits for a parent, or a long transaction) gives up
 * with lock_not_available instead of becoming a deadlock whose victim could be a request.
 */
export async function holdWriters(db: Queryable, tx: Queryable): Promise<void> {
  await tx.query(`SELECT set_config('lock_timeout', '${WRITERS_WAIT}', true)`);
  await switchJournalOn(db, tx);
  await tx.query(`LOCK TABLE ${CHECKPOINT_TABLES.join(', ')} IN SHARE MODE`);
}

/** The lock holdWriters asked for was not had in time (SQLSTATE 55P03). */
export function writersTookTooLong(err: unknown): boolean {
  return (err as {code?: unknown} | null)?.code === '55P03';
}

/** Switches the journal's triggers on (migration 018 made them off), in the caller's transaction. */
export async function switchJournalOn(db: Queryable, tx: Queryable): Promise<void> {
  if (journalOn.has(db)) return;
  const {rows} = await tx.query<{table: string; trigger: string}>(
    `SELECT c.relname::text AS table, t.tgname::text AS trigger FROM pg_trigger t
       JOIN pg_class c ON c.oid = t.tgrelid
      WHERE c.oid = ANY($1::regclass[]) AND t.tgname LIKE 'journal\\_%' AND t.tgenabled = 'D'`,
    [[...CHECKPOINT_TABLES]],
  );
  for (const {table, trigger} of rows) {
    await tx.query(`ALTER TABLE ${table} ENABLE TRIGGER ${trigger}`);
  }
}

/** Where a checkpoint kept in the journal stands in it. */
export interface JournalMark {
  /** The journal's number taken for it. */
  seq: string;
  /** Some delivery of the org was held under a lease when it was taken (true when that is not known). */
  leasesHeld: boolean;
}

/** The journal mark of the org's checkpoint `name`; undefined for one kept as a copy (or none of that name). */
export async function journalMark(
  q: Queryable,
  orgId: string,
  name: string,
): Promise<JournalMark | undefined> {
  const {rows} = await q.query<{seq: string | null; leases_held: boolean | null}>(
    'SELECT journal_seq::text AS seq, leases_held FROM org_checkpoints WHERE org_id = $1 AND name = $2',
    [orgId, name],
  );
  const seq = rows[0]?.seq;
  return seq ? {seq, leasesHeld: rows[0]?.leases_held !== false} : undefined;
}

/**
 * Puts the org back as it was at the journal number `seq`, in the caller's transaction (with the journal off, as
 * restoreCheckpointRows sets it): each table's rows made since go (children first), those changed since are set
 * back, those gone since are written again (parents first), and the entries used are forgotten. With `release`,
 * the rows the journal holds no change of since are then stripped of what a checkpoint does not keep (leases held
 * at that number and held still). Resolves to the count of rows it deleted, changed or wrote (the org's and the
 * journal's).
 */
export async function unjournal(
  statements: JournalStatements,
  tx: Queryable,
  orgId: string,
  seq: string,
  {release}: {release: boolean},
): Promise<number> {
  const params = [orgId, seq];
  const has = (await tx.query<Record<CheckpointTable, boolean>>(statements.journaled, params)).rows[0];
  const tables = CHECKPOINT_TABLES.filter((t) => has?.[t] === true);
  const childrenFirst = [...tables].reverse();
  let rows = 0;
  const run = async (sql: string, args: unknown[] = params) => {
    rows += (await tx.query(sql, args)).rowCount;
  };
  for (const t of childrenFirst) await run(statements.unjournal[t].deleteMade);
  for (const t of tables) await run(statements.unjournal[t].updateChanged);
  for (const t of tables) await run(statements.unjournal[t].insertGone);
  // Each entry forgotten is a dead row too, which the next VACUUM takes.
  for (const t of childrenFirst) await run(statements.unjournal[t].forget);
  if (release) for (const sql of statements.release) await run(sql, [orgId]);
  return rows;
}
