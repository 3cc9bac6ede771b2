// Snapshots (src/schemas/snapshot.ts): the whole state read in one consistent transaction, and a snapshot
// checked whole (shape, ids, references) before it is written in one transaction. Loading one fires nothing:
// its events and deliveries are history, and pending deliveries go on from where they were.
import {EARLIEST_CLOCK_MS, LATEST_CLOCK_MS} from '../../definitions.js';
import {
  SNAPSHOT_FORMAT_KEY,
  SNAPSHOT_FORMAT_VERSION,
  SNAPSHOT_TABLES,
  type Snapshot,
  SnapshotSchema,
  type SnapshotTable,
} from '../../schemas/snapshot.js';
import type {ManualClock} from '../clock.js';
import type {EmulatorContext} from '../context.js';
import type {Queryable} from '../db/database.js';
import type {Problem} from '../operation-error.js';
import {vaultUnavailable} from '../operation-error.js';
import {listed} from './document.js';
import {endpointHostProblems, type SnapshotRuleOptions, snapshotRuleProblems} from './snapshot-rules.js';
import {mergeConflict} from './merge-conflicts.js';
import {formatPath, StateFileError} from './state-file-error.js';

/** Each table's columns, as the snapshot names them: its schema's fields. */
function columnsOf(table: SnapshotTable): string[] {
  const element = SnapshotSchema.shape[table].element as unknown as {shape: Record<string, unknown>};
  return Object.keys(element.shape);
}

/** In the database, an endpoint's signing secret is stored encrypted instead. */
const dbColumns = (table: SnapshotTable) =>
  columnsOf(table).map((c) => (table === 'webhook_endpoints' && c === 'secret' ? 'secret_ciphertext' : c));

const ORDER: Record<SnapshotTable, string> = {
  orgs: 'created_at, id',
  persons: 'created_at, id',
  memberships: 'seq',
  invitations: 'created_at, org_id, person_id',
  api_keys: 'created_at, id',
  webhook_endpoints: 'created_at, id',
  relay_endpoints: 'created_at, endpoint_id',
  sandboxes: 'created_at, id',
  sandbox_links: 'created_at, id',
  events: 'created_at, id',
  deliveries: 'created_at, seq',
  delivery_attempts: 'delivery_id, attempt',
};

/** Numbers that a driver may hand back as strings (bigint). */
const NUMERIC = new Set([
  'attempts',
  'manual_attempts',
  'last_status_code',
  'attempt',
  'duration_ms',
  'status_code',
  'signature_t',
]);

function plain(column: string, value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (value === null || value === undefined) return null;
  if (NUMERIC.has(column)) return Number(value);
  return value;
}

/** The whole state, read in one transaction so a running emulator gives a consistent picture. */
export async function exportSnapshot(ctx: EmulatorContext): Promise<Snapshot> {
  if (!ctx.vault.available) {
    throw vaultUnavailable(
      'the state cannot be exported: this emulator runs without a vault key, so signing secrets cannot be read',
    );
  }
  if (ctx.clock.mode === 'manual') await (ctx.clock as ManualClock).refresh();
  const now = ctx.clock.now().toISOString();
  const tables = await ctx.db.transaction(async (tx) => {
    await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
    const out: Partial<Record<SnapshotTable, Record<string, unknown>[]>> = {};
    for (const table of SNAPSHOT_TABLES) {
      const columns = columnsOf(table);
      const {rows} = await tx.query<Record<string, unknown>>(
        `SELECT ${dbColumns(table).join(', ')} FROM ${table} ORDER BY ${ORDER[table]}`,
      );
      out[table] = rows.map((row) =>
        Object.fromEntries(
          columns.map((c) => {
            if (table === 'webhook_endpoints' && c === 'secret') {
              return [c, ctx.vault.decrypt(row.secret_ciphertext as string)];
            }
            return [c, plain(c, row[c])];
          }),
        ),
      );
    }
    // Each org's own clock, as its time: the emulator's clock plus its offset.
    const clocks = await tx.query<{org_id: string; offset_ms: string | number}>(
      'SELECT org_id, offset_ms::text FROM org_clocks ORDER BY org_id',
    );
    const orgClocks = clocks.rows.map((r) => ({
      org_id: r.org_id,
      now: new Date(Date.parse(now) + Number(r.offset_ms)).toISOString(),
    }));
    return {tables: out as Record<SnapshotTable, Record<string, unknown>[]>, orgClocks};
  });
  return {
    [SNAPSHOT_FORMAT_KEY]: SNAPSHOT_FORMAT_VERSION,
    exported_at: now,
    clock: {mode: ctx.clock.mode, now},
    org_clocks: tables.orgClocks,
    default_org_id: ctx.current.orgId,
    ...tables.tables,
  } as Snapshot;
}

/**
 * Checks a parsed snapshot whole: its shape, that every reference points inside it, and every rule its rows must
 * keep (snapshot-rules.ts). Every problem is reported at once.
 */
export async function checkSnapshot(
  document: unknown,
  source: string,
  options: SnapshotRuleOptions,
  /** Problems found before (strings holding NUL), reported with the rest. */
  earlier: readonly Problem[] = [],
): Promise<Snapshot> {
  const version = (document as Record<string, unknown>)[SNAPSHOT_FORMAT_KEY];
  if (typeof version === 'number' && version > SNAPSHOT_FORMAT_VERSION) {
    throw new StateFileError(source, [
      {
        field: SNAPSHOT_FORMAT_KEY,
        message: `is ${version}, a snapshot format newer than this svc reads (${SNAPSHOT_FORMAT_VERSION}); upgrade svc to load it`,
      },
    ]);
  }
  const parsed = SnapshotSchema.safeParse(document);
  if (!parsed.success) {
    // A damaged file can break every row the same way: the first problems say enough.
    throw new StateFileError(
      source,
      listed([
        ...earlier,
        ...parsed.error.issues.map((issue) => ({field: formatPath(issue.path), message: issue.message})),
      ]),
    );
  }
  const snap = parsed.data;
  const problems: Problem[] = [...earlier];
  const outsideClockRange = (iso: string) => {
    const ms = Date.parse(iso);
    return ms < EARLIEST_CLOCK_MS || ms > LATEST_CLOCK_MS;
  };
  if (outsideClockRange(snap.clock.now)) {
    problems.push({
      field: 'clock.now',
      message: 'is outside the dates the emulator clock can show (1970 to 9998)',
    });
  }
  const clockedOrgs = new Set<string>();
  for (const [i, c] of (snap.org_clocks ?? []).entries()) {
    if (outsideClockRange(c.now)) {
      problems.push({
        field: `org_clocks[${i}].now`,
        message: 'is outside the dates an org clock can show (1970 to 9998)',
      });
    }
    if (clockedOrgs.has(c.org_id))
      problems.push({field: `org_clocks[${i}].org_id`, message: 'is listed twice'});
    clockedOrgs.add(c.org_id);
  }
  const ids = (rows: readonly {id: string}[], table: string) => {
    const seen = new Set<string>();
    rows.forEach((r, i) => {
      if (seen.has(r.id)) problems.push({field: `${table}[${i}].id`, message: 'is listed twice'});
      seen.add(r.id);
    });
    return seen;
  };
  const orgs = ids(snap.orgs, 'orgs');
  const persons = ids(snap.persons, 'persons');
  const endpoints = ids(snap.webhook_endpoints, 'webhook_endpoints');
  const events = ids(snap.events, 'events');
  const deliveries = ids(snap.deliveries, 'deliveries');
  const keys = ids(snap.api_keys, 'api_keys');
  const sandboxes = ids(snap.sandboxes, 'sandboxes');
  ids(snap.sandbox_links, 'sandbox_links');
  const refer = (known: Set<string>, value: string | null, field: string, what: string) => {
    if (value !== null && !known.has(value))
      problems.push({field, message: `names ${what} ${value}, which the file does not hold`});
  };
  refer(orgs, snap.default_org_id, 'default_org_id', 'the org');
  for (const [i, c] of (snap.org_clocks ?? []).entries()) {
    refer(orgs, c.org_id, `org_clocks[${i}].org_id`, 'the org');
  }
  const byOrg = [
    'memberships',
    'invitations',
    'sandbox_links',
    'api_keys',
    'webhook_endpoints',
    'relay_endpoints',
    'sandboxes',
    'events',
    'deliveries',
  ] as const;
  for (const table of byOrg) {
    for (const [i, row] of snap[table].entries()) refer(orgs, row.org_id, `${table}[${i}].org_id`, 'the org');
  }
  for (const [i, m] of snap.memberships.entries()) {
    refer(persons, m.person_id, `memberships[${i}].person_id`, 'the person');
    refer(persons, m.invited_by, `memberships[${i}].invited_by`, 'the person');
  }
  for (const [i, p] of snap.persons.entries()) {
    refer(orgs, p.last_org_id, `persons[${i}].last_org_id`, 'the org');
  }
  for (const [i, v] of snap.invitations.entries()) {
    refer(persons, v.person_id, `invitations[${i}].person_id`, 'the person');
    refer(persons, v.invited_by, `invitations[${i}].invited_by`, 'the person');
  }
  for (const [i, l] of snap.sandbox_links.entries()) {
    refer(sandboxes, l.sandbox_id, `sandbox_links[${i}].sandbox_id`, 'the sandbox');
    refer(keys, l.key_id, `sandbox_links[${i}].key_id`, 'the key');
  }
  for (const [i, r] of snap.relay_endpoints.entries()) {
    refer(endpoints, r.endpoint_id, `relay_endpoints[${i}].endpoint_id`, 'the endpoint');
  }
  for (const [i, d] of snap.deliveries.entries()) {
    refer(events, d.event_id, `deliveries[${i}].event_id`, 'the event');
    refer(endpoints, d.endpoint_id, `deliveries[${i}].endpoint_id`, 'the endpoint');
  }
  for (const [i, a] of snap.delivery_attempts.entries()) {
    refer(deliveries, a.delivery_id, `delivery_attempts[${i}].delivery_id`, 'the delivery');
  }
  problems.push(...snapshotRuleProblems(snap, options), ...(await endpointHostProblems(snap, options)));
  if (problems.length > 0) throw new StateFileError(source, listed(problems));
  return snap;
}

/** Writes a checked snapshot in the caller's transaction, table by table, each in one statement. */
export async function writeSnapshot(
  ctx: EmulatorContext,
  tx: Queryable,
  snap: Snapshot,
  source: string,
): Promise<void> {
  if (snap.webhook_endpoints.length > 0 && !ctx.vault.available) {
    throw new StateFileError(source, [
      {
        field: 'webhook_endpoints',
        message: 'cannot be loaded: this emulator runs without a vault key, which signing secrets need',
      },
    ]);
  }
  for (const table of SNAPSHOT_TABLES) {
    let rows: Record<string, unknown>[] = snap[table];
    if (rows.length === 0) continue;
    if (table === 'webhook_endpoints') {
      rows = snap.webhook_endpoints.map(({secret, ...row}) => ({
        ...row,
        secret_ciphertext: ctx.vault.encrypt(secret),
      }));
    }
    const columns = dbColumns(table).join(', ');
    try {
      await tx.query(
        `INSERT INTO ${table} (${columns}) SELECT ${columns} FROM json_populate_recordset(NULL::${table}, $1::json)`,
        [JSON.stringify(rows)],
      );
    } catch (err) {
      // A clash the check before the write did not foresee: said in svc's words (never the database's), and
      // nothing is written.
      const pg = err as {code?: string};
      if (pg.code === '23505' || pg.code === '23503') {
        throw mergeConflict(source, [
          {
            field: table,
            message: 'cannot be merged: one of its rows clashes with a record the emulator already has',
          },
        ]);
      }
      throw err;
    }
  }
}
