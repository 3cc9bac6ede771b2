// Sandbox rows: plain SQL over the Queryable interface so the same code runs inside and outside transactions.
import type {SandboxRecord} from '../../schemas/emulator.js';
import type {Queryable} from '../db/database.js';
import type {SandboxStatus} from '../../definitions.js';
import type {SandboxState} from './transitions.js';
import {orgOffsetSql} from '../db/org-clocks.js';

export interface SandboxRow extends SandboxState {
  id: string;
  org_id: string;
  name: string;
  created_at: Date;
  updated_at: Date;
}

export type {SandboxRecord};

interface RawRow {
  id: string;
  org_id: string;
  name: string;
  status: string;
  desired_state: string;
  last_error: string | null;
  expires_at: Date | string | null;
  created_at: Date | string;
  updated_at: Date | string;
}

const COLUMNS = 'id, org_id, name, status, desired_state, last_error, expires_at, created_at, updated_at';

function fromRaw(r: RawRow): SandboxRow {
  return {
    id: r.id,
    org_id: r.org_id,
    name: r.name,
    status: r.status as SandboxStatus,
    desired_state: r.desired_state,
    last_error: r.last_error,
    expires_at: r.expires_at === null ? null : new Date(r.expires_at),
    created_at: new Date(r.created_at),
    updated_at: new Date(r.updated_at),
  };
}

export function toRecord(row: SandboxRow): SandboxRecord {
  return {
    id: row.id,
    org_id: row.org_id,
    name: row.name,
    status: row.status,
    desired_state: row.desired_state,
    last_error: row.last_error,
    expires_at: row.expires_at ? row.expires_at.toISOString() : null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export async function insertSandbox(q: Queryable, row: SandboxRow): Promise<void> {
  await q.query(`INSERT INTO sandboxes (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, [
    row.id,
    row.org_id,
    row.name,
    row.status,
    row.desired_state,
    row.last_error,
    row.expires_at,
    row.created_at,
    row.updated_at,
  ]);
}

/** Reads a sandbox; `forUpdate` locks it for the rest of the transaction so concurrent moves serialise. */
export async function findSandbox(q: Queryable, id: string, forUpdate = false): Promise<SandboxRow | null> {
  const r = await q.query<RawRow>(
    `SELECT ${COLUMNS} FROM sandboxes WHERE id = $1${forUpdate ? ' FOR UPDATE' : ''}`,
    [id],
  );
  const row = r.rows[0];
  return row ? fromRaw(row) : null;
}

export async function updateSandbox(q: Queryable, id: string, state: SandboxState, now: Date): Promise<void> {
  await q.query(
    `UPDATE sandboxes SET status = $2, desired_state = $3, last_error = $4, expires_at = $5, updated_at = $6 WHERE id = $1`,
    [id, state.status, state.desired_state, state.last_error, state.expires_at, now],
  );
}

export async function listSandboxes(q: Queryable, orgId: string, limit = 100): Promise<SandboxRow[]> {
  const r = await q.query<RawRow>(
    `SELECT ${COLUMNS} FROM sandboxes WHERE org_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`,
    [orgId, limit],
  );
  return r.rows.map(fromRaw);
}

/**
 * The sandboxes not yet being deleted whose `expires_at` has passed by their org's time at the emulator's `now` (at
 * most `limit`, soonest first), and when the next of the others will (emulator-clock time): one statement, run at
 * every clock move.
 */
export async function expiryWork(
  q: Queryable,
  now: Date,
  limit: number,
): Promise<{due: string[]; next: Date | null}> {
  const r = await q.query<{due: string[] | null; next: Date | string | null}>(
    `WITH live AS (
       SELECT id, expires_at, expires_at - ${orgOffsetSql('sandboxes.org_id')} * interval '1 millisecond' AS at
         FROM sandboxes WHERE expires_at IS NOT NULL AND status <> 'deleting')
     SELECT (SELECT array_agg(id ORDER BY expires_at, id)
               FROM (SELECT id, expires_at FROM live WHERE at <= $1 ORDER BY expires_at, id LIMIT $2) due) AS due,
            (SELECT min(at) FROM live WHERE at > $1) AS next`,
    [now, limit],
  );
  const row = r.rows[0];
  return {due: row?.due ?? [], next: row?.next ? new Date(row.next) : null};
}

export async function orgExists(q: Queryable, orgId: string): Promise<boolean> {
  const r = await q.query('SELECT 1 FROM orgs WHERE id = $1', [orgId]);
  return r.rows.length > 0;
}
