// The shape of what a checkpoint holds, shared by its two ways of keeping it (org-checkpoints.ts copies, and
// checkpoint-journal.ts marks in the journal): which rows of each table are an org's, the columns a checkpoint keeps
// otherwise than as they are, and each table's columns and key as the database lists them.
import {CHECKPOINT_TABLES, type CheckpointTable} from '../../schemas/checkpoints.js';
import type {Queryable} from './database.js';

// The tables are named once (src/schemas/checkpoints.ts), each after those it refers to. Deliveries are found
// through their endpoints (they keep no index on their org), their attempts by the org they name (migration 020).
// The org's clock is kept beside the rows (org_checkpoints.clock_ms), and its people stay as they are, as a reset
// leaves them.

export const ENDPOINTS_OF_ORG = 'ARRAY(SELECT w.id FROM webhook_endpoints w WHERE w.org_id = $1)';

/** SQL: which rows `t` of each table are the org $1's. */
export const OF_ORG: Readonly<Record<CheckpointTable, string>> = {
  api_keys: 't.org_id = $1',
  webhook_endpoints: 't.org_id = $1',
  relay_endpoints: 't.org_id = $1',
  sandboxes: 't.org_id = $1',
  sandbox_links: 't.org_id = $1',
  events: 't.org_id = $1',
  deliveries: `t.endpoint_id = ANY(${ENDPOINTS_OF_ORG})`,
  delivery_attempts: 't.org_id = $1',
};

/** SQL: the rows of the org $1 in each table. */
export const ROWS_OF = (table: CheckpointTable) => `FROM ${table} t WHERE ${OF_ORG[table]}`;

/**
 * A delivery's lease is the state of the worker holding it then, not of the org: a rewound delivery is held by
 * nobody, so it is due at once when its time has come.
 */
export const SAVED_AS: Readonly<Partial<Record<CheckpointTable, Readonly<Record<string, string>>>>> = {
  deliveries: {locked_until: 'NULL', locked_by: 'NULL'},
};

/** SQL: row `t` of the table holds more than a checkpoint keeps of it (SAVED_AS: a delivery under a lease). */
export function holdsMore(table: CheckpointTable): string {
  const saved = Object.entries(SAVED_AS[table] ?? {});
  if (saved.length === 0) return 'false';
  return `(${saved.map(([c, v]) => `t.${c} IS DISTINCT FROM ${v}`).join(' OR ')})`;
}

/** A table's columns in their order, and those of its primary key. */
export interface TableShape {
  columns: readonly string[];
  key: readonly string[];
}

/** Each checkpoint table's columns and key, read from the database's catalog. */
export async function readShapes(db: Queryable): Promise<Record<CheckpointTable, TableShape>> {
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

/** Columns as a list for SQL, each with `prefix` (a table alias and its dot). */
export function columnList(columns: readonly string[], prefix = ''): string {
  return columns.map((c) => `${prefix}${c}`).join(', ');
}
