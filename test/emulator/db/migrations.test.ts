// Backends: the migration runner's statements (a dollar-quoted body, a DO block, a transaction rolled back part-way)
// are parsed and run by the database itself, so each case runs on both.
// Each case gets a schema of its own: on PostgreSQL a scratch schema, on PGlite one in the file's one database (a
// copy of the emulator's template: a PGlite's initdb costs seconds), so no case sees another's tables or its
// schema_migrations.
import {randomBytes} from 'node:crypto';
import {mkdtemp, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {pathToFileURL} from 'node:url';
import type {PGlite} from '@electric-sql/pglite';
import pg from 'pg';
import {afterAll, beforeAll, expect, it} from 'vitest';
import {type Database, migrate, wrapPGlite, wrapPgPool} from '../../../src/emulator/db/database.js';
import {openPGlite} from '../../../src/emulator/db/pglite.js';
import {copyTemplate, ensureTemplate} from '../../../src/emulator/db/template.js';
import {PGDATA} from '../../../src/emulator-layout/runtime.js';
import {scratchSchema} from '../../helpers/pg-schema.js';
import {describeEachBackend, POSTGRES, postgresUrl, type Requirement} from '../../helpers/requirements.js';

// Semicolons at line ends inside a dollar-quoted body and a DO block, and one inside a string.
const WITH_BODIES = `-- a migration as a future one might look
CREATE TABLE notes (id serial PRIMARY KEY, body text NOT NULL);

CREATE FUNCTION note_count() RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
  n bigint;
BEGIN
  SELECT count(*) INTO n FROM notes;
  RETURN n;
END;
$$;

DO $$
BEGIN
  INSERT INTO notes (body) VALUES ('from a DO block');
  INSERT INTO notes (body) VALUES ('two;
lines');
END
$$;
`;

const BROKEN = `CREATE TABLE half_done (id int);
SELECT no_such_function();
`;

interface Backend {
  name: string;
  needs?: Requirement[];
  open(): Promise<{db: Database; dispose(): Promise<void>}>;
}

/** The file's one PGlite, opened on first use and closed after the file. */
let pglite: Promise<PGlite> | undefined;

async function openShared(): Promise<PGlite> {
  const pgdata = join(await mkdtemp(join(dir, 'pglite-')), PGDATA);
  await copyTemplate(await ensureTemplate(), pgdata);
  return openPGlite(pgdata);
}

const backends: Backend[] = [
  {
    name: 'PGlite',
    async open() {
      pglite ??= openShared();
      const shared = await pglite;
      const schema = `svc_test_${randomBytes(6).toString('hex')}`;
      await shared.exec(`CREATE SCHEMA ${schema}; SET search_path TO ${schema}`);
      // The wrapper's close would close the shared PGlite: this case's database is its schema.
      const db = wrapPGlite(shared as never);
      return {
        db,
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

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-migrations-'));
});
afterAll(async () => {
  await (await pglite)?.close();
  await rm(dir, {recursive: true, force: true});
});

async function migrationsDir(files: Record<string, string>): Promise<URL> {
  const sub = await mkdtemp(join(dir, 'set-'));
  for (const [name, sql] of Object.entries(files)) await writeFile(join(sub, name), sql);
  return pathToFileURL(`${sub}/`);
}

describeEachBackend(backends, 'migrations on $name', (backend) => {
  it('runs a file with a function body and a DO block as written, once', async () => {
    const {db, dispose} = await backend.open();
    try {
      const migrations = await migrationsDir({'001_bodies.sql': WITH_BODIES});
      expect(await migrate(db, {dir: migrations})).toEqual(['001_bodies']);
      const {rows} = await db.query<{n: string}>('SELECT note_count() AS n');
      expect(Number(rows[0]?.n)).toBe(2);
      const bodies = await db.query<{body: string}>('SELECT body FROM notes ORDER BY id');
      expect(bodies.rows.map((r) => r.body)).toEqual(['from a DO block', 'two;\nlines']);
      // Applied once: a second run finds nothing to do.
      expect(await migrate(db, {dir: migrations})).toEqual([]);
    } finally {
      await dispose();
    }
  });

  it('applies nothing of a file that fails part-way', async () => {
    const {db, dispose} = await backend.open();
    try {
      const migrations = await migrationsDir({
        '001_ok.sql': 'CREATE TABLE fine (id int);',
        '002_broken.sql': BROKEN,
      });
      await expect(migrate(db, {dir: migrations})).rejects.toThrow(/no_such_function/);
      const tables = await db.query<{name: string}>(
        "SELECT table_name AS name FROM information_schema.tables WHERE table_name IN ('fine', 'half_done') AND table_schema = current_schema()",
      );
      expect(tables.rows.map((r) => r.name)).toEqual(['fine']);
      const versions = await db.query<{version: string}>('SELECT version FROM schema_migrations');
      expect(versions.rows.map((r) => r.version)).toEqual(['001_ok']);
    } finally {
      await dispose();
    }
  });

  it('still runs the shipped migrations', async () => {
    const {db, dispose} = await backend.open();
    try {
      const applied = await migrate(db);
      expect(applied.length).toBeGreaterThan(0);
      const {rows} = await db.query<{n: string}>('SELECT count(*) AS n FROM orgs');
      expect(Number(rows[0]?.n)).toBe(0);
    } finally {
      await dispose();
    }
  });
});
