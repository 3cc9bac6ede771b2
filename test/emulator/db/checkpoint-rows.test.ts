// Backends: the checkpoint tables are made by a migration (LIKE, a trigger with a transition table) and filled from
// the JSON checkpoints kept before by PostgreSQL's own functions, so each case runs on both.
// The checkpoint tables (checkpoint_<table>): each has its table's columns after the checkpoint's org and name, the
// checkpoints taken before them (JSON in org_checkpoints.rows) move over row for row, and a checkpoint deleted, or
// its org, takes its rows with it. Each case gets a schema of its own (on PGlite one in the file's one database, a
// copy of the emulator's template).
import {randomBytes} from 'node:crypto';
import {cp, mkdtemp, readdir, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {fileURLToPath, pathToFileURL} from 'node:url';
import type {PGlite} from '@electric-sql/pglite';
import pg from 'pg';
import {afterAll, beforeAll, expect, it} from 'vitest';
import {type Database, migrate, wrapPGlite, wrapPgPool} from '../../../src/emulator/db/database.js';
import {openPGlite} from '../../../src/emulator/db/pglite.js';
import {checkpointRowsTable, journalTable} from '../../../src/emulator/db/tables.js';
import {copyTemplate, ensureTemplate} from '../../../src/emulator/db/template.js';
import {PGDATA} from '../../../src/emulator-layout/runtime.js';
import {CHECKPOINT_TABLES} from '../../../src/schemas/checkpoints.js';
import {scratchSchema} from '../../helpers/pg-schema.js';
import {describeEachBackend, POSTGRES, postgresUrl, type Requirement} from '../../helpers/requirements.js';

const MIGRATIONS = new URL('../../../src/emulator/db/migrations/', import.meta.url);
/** The migration that moved checkpoints out of JSON, and so the last one before it. */
const ROWS_MIGRATION = '017_checkpoint_rows.sql';

interface Backend {
  name: string;
  needs?: Requirement[];
  open(): Promise<{db: Database; dispose(): Promise<void>}>;
}

let pglite: Promise<PGlite> | undefined;
let dir: string;

const backends: Backend[] = [
  {
    name: 'PGlite',
    async open() {
      pglite ??= (async () => {
        const pgdata = join(await mkdtemp(join(dir, 'pglite-')), PGDATA);
        await copyTemplate(await ensureTemplate(), pgdata);
        return openPGlite(pgdata);
      })();
      const shared = await pglite;
      const schema = `svc_test_${randomBytes(6).toString('hex')}`;
      await shared.exec(`CREATE SCHEMA ${schema}; SET search_path TO ${schema}`);
      return {
        db: wrapPGlite(shared as never),
        dispose: async () => {
          await shared.exec(`DROP SCHEMA ${schema} CASCADE; RESET search_path`);
        },
      };
    },
  },
  {
    name: 'PostgreSQL',
    needs: [POSTGRES],
    async open() {
      const schema = await scratchSchema(postgresUrl());
      const db = wrapPgPool(new pg.Pool({connectionString: schema.url, max: 2}));
      return {
        db,
        dispose: async () => {
          await db.close();
          await schema.drop();
        },
      };
    },
  },
];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-checkpoint-rows-'));
});
afterAll(async () => {
  await (await pglite)?.close();
  await rm(dir, {recursive: true, force: true});
});

/** A folder with the shipped migrations before `migration` (the checkpoint tables unless told). */
async function migrationsBefore(migration = ROWS_MIGRATION): Promise<URL> {
  const sub = await mkdtemp(join(dir, 'before-'));
  for (const file of await readdir(MIGRATIONS)) {
    if (file < migration) await cp(fileURLToPath(new URL(file, MIGRATIONS)), join(sub, file));
  }
  return pathToFileURL(`${sub}/`);
}

/** One org with a row in each table a checkpoint holds: NULLs, an array, timestamps to the microsecond. */
async function seedOrg(db: Queryable, orgId: string): Promise<void> {
  const at = '2031-05-06T07:08:09.123456Z';
  const script = [
    [`INSERT INTO orgs (id, name, created_at) VALUES ($1, 'seeded', $2)`],
    [
      `INSERT INTO api_keys (id, org_id, name, prefix, secret_hash, created_at, expires_at)
       VALUES ($1 || '_key', $1, 'k', 'sk_test_ab', $1 || 'hash', $2, $2::timestamptz + interval '1 day')`,
    ],
    [
      `INSERT INTO webhook_endpoints (id, org_id, url, events, description, secret_ciphertext, created_at)
       VALUES ($1 || '_hook', $1, 'http://127.0.0.1:9/x', ARRAY['sandbox.error', 'sandbox.ready'], NULL, 'c', $2)`,
    ],
    [
      `INSERT INTO relay_endpoints (org_id, name, endpoint_id, created_at) VALUES ($1, 'r', $1 || '_hook', $2)`,
    ],
    [
      `INSERT INTO sandboxes (id, org_id, name, status, desired_state, created_at, updated_at)
       VALUES ($1 || '_sbx', $1, 's', 'running', 'running', $2, $2)`,
    ],
    [
      `INSERT INTO sandbox_links (id, org_id, sandbox_id, key_id, kind, port, token_hash, created_at)
       VALUES ($1 || '_lnk', $1, $1 || '_sbx', $1 || '_key', 'port', 8080, $1 || 'token', $2)`,
    ],
    [
      `INSERT INTO events (id, org_id, type, created_at, body) VALUES ($1 || '_evt', $1, 'sandbox.error', $2, '{}')`,
    ],
    [
      `INSERT INTO deliveries (id, org_id, event_id, endpoint_id, event_type, status, attempts, created_at,
                               last_attempt_at, next_attempt_at, last_status_code)
       VALUES ($1 || '_dlv', $1, $1 || '_evt', $1 || '_hook', 'sandbox.error', 'pending', 1, $2, $2,
               $2::timestamptz + interval '30.000001 seconds', 500)`,
    ],
    [
      `INSERT INTO delivery_attempts (delivery_id, attempt, started_at, duration_ms, status_code, response_body,
                                      signature_t)
       VALUES ($1 || '_dlv', 1, $2, 3, 500, 'no', 1967000000)`,
    ],
  ];
  for (const [sql] of script) await db.query(sql as string, [orgId, at]);
}

type Queryable = Pick<Database, 'query'>;

/** The org's rows in each table, as JSON (a delivery's lease left out: a checkpoint does not keep it). */
async function liveRows(db: Queryable, orgId: string): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const table of CHECKPOINT_TABLES) {
    const ofOrg =
      table === 'delivery_attempts'
        ? 'delivery_id IN (SELECT id FROM deliveries WHERE org_id = $1)'
        : 'org_id = $1';
    const {rows} = await db.query<{row: unknown}>(
      `SELECT to_jsonb(t) - 'locked_until' - 'locked_by' AS row FROM ${table} t WHERE ${ofOrg} ORDER BY 1::text`,
      [orgId],
    );
    out[table] = rows.map((r) => (typeof r.row === 'string' ? JSON.parse(r.row) : r.row));
  }
  return out;
}

/** A checkpoint's rows in each checkpoint table, as JSON without its two keys. */
async function savedRows(db: Queryable, orgId: string, name: string): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const table of CHECKPOINT_TABLES) {
    const {rows} = await db.query<{row: unknown}>(
      `SELECT to_jsonb(c) - 'checkpoint_org_id' - 'checkpoint_name' - 'locked_until' - 'locked_by' AS row
         FROM ${checkpointRowsTable(table)} c WHERE checkpoint_org_id = $1 AND checkpoint_name = $2 ORDER BY 1::text`,
      [orgId, name],
    );
    out[table] = rows.map((r) => (typeof r.row === 'string' ? JSON.parse(r.row) : r.row));
  }
  return out;
}

describeEachBackend(backends, 'checkpoint tables on $name', (backend) => {
  it("hold each table's columns, in its order and of its types, after their own (copies and journals)", async () => {
    const {db, dispose} = await backend.open();
    try {
      await migrate(db);
      const columns = async (table: string) =>
        (
          await db.query<{name: string; type: string}>(
            `SELECT attname::text AS name, format_type(atttypid, atttypmod) AS type FROM pg_attribute
              WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum`,
            [table],
          )
        ).rows;
      for (const table of CHECKPOINT_TABLES) {
        expect(await columns(checkpointRowsTable(table)), table).toEqual([
          {name: 'checkpoint_org_id', type: 'text'},
          {name: 'checkpoint_name', type: 'text'},
          ...(await columns(table)),
        ]);
        expect(await columns(journalTable(table)), table).toEqual([
          {name: 'journal_seq', type: 'bigint'},
          {name: 'journal_org_id', type: 'text'},
          {name: 'journal_op', type: '"char"'},
          ...(await columns(table)),
        ]);
      }
    } finally {
      await dispose();
    }
  });

  it('name each attempt’s org: those there before by the migration, one written without it by its delivery', async () => {
    const {db, dispose} = await backend.open();
    try {
      await migrate(db, {dir: await migrationsBefore('020_attempt_org.sql')});
      await seedOrg(db, 'org_a');
      await seedOrg(db, 'org_b');
      expect(await migrate(db)).toContain('020_attempt_org');
      const orgs = async () =>
        (
          await db.query<{attempt: number; org_id: string; delivery_org: string}>(
            `SELECT a.attempt, a.org_id, d.org_id AS delivery_org FROM delivery_attempts a
               JOIN deliveries d ON d.id = a.delivery_id ORDER BY a.delivery_id, a.attempt`,
          )
        ).rows;
      expect(await orgs()).toEqual([
        {attempt: 1, org_id: 'org_a', delivery_org: 'org_a'},
        {attempt: 1, org_id: 'org_b', delivery_org: 'org_b'},
      ]);
      // As a state loaded from a file writes them: no org named.
      await db.query(
        `INSERT INTO delivery_attempts (delivery_id, attempt, started_at, duration_ms) VALUES ('org_b_dlv', 2, now(), 1)`,
      );
      expect((await orgs()).at(-1)).toEqual({attempt: 2, org_id: 'org_b', delivery_org: 'org_b'});
    } finally {
      await dispose();
    }
  });

  it('take over the checkpoints kept as JSON before them, row for row', async () => {
    const {db, dispose} = await backend.open();
    try {
      await migrate(db, {dir: await migrationsBefore()});
      await seedOrg(db, 'org_old');
      await seedOrg(db, 'org_other');
      const live = await liveRows(db, 'org_old');
      // A checkpoint as the JSON one was taken: one array of whole rows per table.
      const arrays = CHECKPOINT_TABLES.map((table) => {
        const ofOrg =
          table === 'delivery_attempts'
            ? "delivery_id IN (SELECT id FROM deliveries WHERE org_id = 'org_old')"
            : "org_id = 'org_old'";
        const row = table === 'deliveries' ? "to_jsonb(t) - 'locked_until' - 'locked_by'" : 'to_jsonb(t)';
        return `'${table}', (SELECT coalesce(jsonb_agg(${row}), '[]'::jsonb) FROM ${table} t WHERE ${ofOrg})`;
      });
      await db.query(
        `INSERT INTO org_checkpoints (org_id, name, taken_at, clock_ms, own_clock, counts, rows)
         SELECT 'org_old', 'before', now(), 1967000000000, true, '{}'::jsonb, jsonb_build_object(${arrays.join(', ')})`,
      );

      expect(await migrate(db)).toContain(ROWS_MIGRATION.replace(/\.sql$/, ''));
      // A later migration names each attempt's org (020): the rows are the same but for that column, in the
      // checkpoint as in the table.
      const liveNow = await liveRows(db, 'org_old');
      expect(await savedRows(db, 'org_old', 'before')).toEqual(liveNow);
      expect(liveNow.delivery_attempts).toEqual(
        (live.delivery_attempts as object[]).map((a) => ({...a, org_id: 'org_old'})),
      );
      expect({...liveNow, delivery_attempts: live.delivery_attempts}).toEqual(live);
      expect(live.deliveries).toHaveLength(1);
      expect(live.delivery_attempts).toHaveLength(1);
      const kept = await db.query<{name: string}>(
        `SELECT attname::text AS name FROM pg_attribute
          WHERE attrelid = 'org_checkpoints'::regclass AND attname = 'rows' AND NOT attisdropped`,
      );
      expect(kept.rows).toEqual([]);

      // A checkpoint deleted takes its rows; so does one whose org is deleted; another org's stay.
      await db.query(`INSERT INTO org_checkpoints (org_id, name, taken_at, clock_ms, own_clock, counts)
                      VALUES ('org_other', 'kept', now(), 0, false, '{}')`);
      await db.query(`INSERT INTO checkpoint_events SELECT 'org_other', 'kept', t.* FROM events t
                       WHERE org_id = 'org_other'`);
      await db.query(`INSERT INTO checkpoint_events SELECT 'org_old', 'deleted', t.* FROM events t
                       WHERE org_id = 'org_old'`);
      await db.query(`INSERT INTO org_checkpoints (org_id, name, taken_at, clock_ms, own_clock, counts)
                      VALUES ('org_old', 'deleted', now(), 0, false, '{}')`);
      await db.query(`DELETE FROM org_checkpoints WHERE org_id = 'org_old' AND name = 'deleted'`);
      expect((await savedRows(db, 'org_old', 'deleted')).events).toEqual([]);
      expect((await savedRows(db, 'org_old', 'before')).events).toHaveLength(1);
      await db.query(`DELETE FROM orgs WHERE id = 'org_old'`);
      for (const rows of Object.values(await savedRows(db, 'org_old', 'before'))) expect(rows).toEqual([]);
      expect((await savedRows(db, 'org_other', 'kept')).events).toHaveLength(1);
    } finally {
      await dispose();
    }
  });
});
