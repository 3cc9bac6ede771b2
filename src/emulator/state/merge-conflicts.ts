// A snapshot merged into a running emulator may only add records: each record of the file the emulator already
// has (the same id, or the same unique value) is named, by kind and id, before anything is written.
import type {Snapshot, SnapshotTable} from '../../schemas/snapshot.js';
import type {Queryable} from '../db/database.js';
import type {Problem} from '../operation-error.js';
import {StateFileError} from './state-file-error.js';

/** What to do about records the emulator already has, for the control surface's callers and the CLI's alike. */
const MERGE_CONFLICT_NEXT_STEP =
  'A merge only adds records the emulator does not have. To load the file in place of the whole state, import ' +
  'it without merging (`svc emulator import FILE` without --merge; mode "replace" on the control surface), or ' +
  'remove those records from the emulator or from the file first.';

interface UniqueColumn {
  table: SnapshotTable;
  /** The column, as the snapshot and the database both name it. */
  column: string;
  /** How the clash is said, given the record's id and the clashing value. */
  says(id: string, value: string): string;
}

const byId = (table: SnapshotTable, kind: string): UniqueColumn => ({
  table,
  column: 'id',
  says: (id) => `the emulator already has the ${kind} ${id}`,
});

/** Every unique value a snapshot's rows carry that no id check above it covers already. */
const UNIQUE_COLUMNS: readonly UniqueColumn[] = [
  byId('orgs', 'org'),
  byId('persons', 'person'),
  {
    table: 'persons',
    column: 'email',
    says: (id, email) => `the emulator already has a person with the email ${email} (this file's ${id})`,
  },
  byId('api_keys', 'API key'),
  {
    table: 'api_keys',
    column: 'secret_hash',
    says: (id) => `the emulator already has an API key with the same secret as this file's ${id}`,
  },
  byId('webhook_endpoints', 'webhook endpoint'),
  byId('sandboxes', 'sandbox'),
  byId('sandbox_links', 'sandbox link'),
  {
    table: 'sandbox_links',
    column: 'token_hash',
    says: (id) => `the emulator already has a sandbox link with the same token as this file's ${id}`,
  },
  byId('events', 'event'),
  byId('deliveries', 'delivery'),
];

/** The records of `snap` that the emulator already has, each named at its place in the file. */
export async function existingRecords(tx: Queryable, snap: Snapshot): Promise<Problem[]> {
  const problems: Problem[] = [];
  for (const unique of UNIQUE_COLUMNS) {
    const rows = snap[unique.table] as unknown as Record<string, unknown>[];
    const values = rows.map((row) => String(row[unique.column]));
    if (values.length === 0) continue;
    const {rows: found} = await tx.query<{value: string}>(
      `SELECT ${unique.column} AS value FROM ${unique.table} WHERE ${unique.column} = ANY($1::text[])`,
      [values],
    );
    const held = new Set(found.map((r) => r.value));
    rows.forEach((row, i) => {
      const value = String(row[unique.column]);
      if (!held.has(value)) return;
      problems.push({
        field: `${unique.table}[${i}].${unique.column}`,
        message: unique.says(String(row.id), value),
      });
    });
  }
  return problems;
}

/** The refusal of a merge whose records clash with the emulator's: 409, every clash named, then what to do. */
export function mergeConflict(source: string, problems: readonly Problem[]): StateFileError {
  return new StateFileError(source, problems, {code: 'conflict', next: MERGE_CONFLICT_NEXT_STEP});
}
