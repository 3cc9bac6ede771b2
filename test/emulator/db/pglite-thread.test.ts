// The emulator's PGlite on its own thread: statements, errors, transactions and shutdown behave as they do with
// PGlite in the same thread, since every repository is written against that behaviour.
import {execFile} from 'node:child_process';
import {mkdtemp, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {fileURLToPath} from 'node:url';
import {promisify} from 'node:util';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import type {Database} from '../../../src/emulator/db/database.js';
import {listMigrations} from '../../../src/emulator/db/database.js';
import {
  openPGliteThread,
  openPGliteThreadInMemory,
  STATEMENT_CACHE,
} from '../../../src/emulator/db/pglite-thread.js';
import {copyTemplate, ensureTemplate} from '../../../src/emulator/db/template.js';
import {PGDATA} from '../../../src/emulator-layout/runtime.js';
import {assertFreshBuild} from '../../helpers/fresh-build.js';

let scratch: string;
let db: Database;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'svc-thread-test-'));
  await copyTemplate(await ensureTemplate(), join(scratch, PGDATA));
  db = await openPGliteThread(join(scratch, PGDATA));
  await db.query('CREATE TABLE t (id int PRIMARY KEY, at timestamptz, tags text[], ok boolean, n bigint)');
});
afterAll(async () => {
  await db.close();
  await rm(scratch, {recursive: true, force: true});
});

describe('PGlite on its own thread', () => {
  it('returns rows with their types, and counts what a write touched', async () => {
    const at = new Date('2030-01-02T03:04:05.678Z');
    const inserted = await db.query('INSERT INTO t VALUES ($1, $2, $3, $4, $5), ($6, $2, $3, $4, $5)', [
      1,
      at,
      ['a', 'b'],
      true,
      9_007_199_254_740_991n,
      2,
    ]);
    expect(inserted.rowCount).toBe(2);
    const r = await db.query<{id: number; at: Date; tags: string[]; ok: boolean; n: number}>(
      'SELECT * FROM t WHERE id = $1',
      [1],
    );
    expect(r.rows).toEqual([{id: 1, at, tags: ['a', 'b'], ok: true, n: 9_007_199_254_740_991}]);
    const script = db.script;
    expect(script).toBeDefined();
    const last = await script?.call(db, 'SELECT 1 AS one; UPDATE t SET ok = false WHERE id <= 2');
    expect(last?.rowCount).toBe(2);
  });

  it('reports a failed statement with the SQLSTATE and constraint PostgreSQL gave', async () => {
    await db.query('INSERT INTO t (id) VALUES (1) ON CONFLICT DO NOTHING');
    const err = await db.query('INSERT INTO t (id) VALUES (1)').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err).toMatchObject({code: '23505', constraint: 't_pkey'});
    expect((err as Error).message).toMatch(/duplicate key/);
    // The session is fine afterwards.
    expect((await db.query('SELECT count(*)::int AS n FROM t WHERE id = 1')).rows).toEqual([{n: 1}]);
  });

  it('holds the session for a transaction: outside statements wait for its end and see only what it committed', async () => {
    let outsideRan = false;
    let outside: Promise<unknown> | undefined;
    await db.transaction(async (tx) => {
      await tx.query('INSERT INTO t (id) VALUES (10)');
      outside = db.query('SELECT count(*)::int AS n FROM t WHERE id IN (10, 11)').then((r) => {
        outsideRan = true;
        return r.rows;
      });
      // Statements reach the database thread in the order they are sent, and each answer comes back in turn:
      // an outside statement sent before this one would have been answered first.
      await tx.query('SELECT 1');
      expect(outsideRan).toBe(false);
      await tx.query('INSERT INTO t (id) VALUES (11)');
    });
    // Both rows: it ran after the commit, not in the middle of the transaction (it would have seen one).
    expect(await outside).toEqual([{n: 2}]);
  });

  it('rolls back everything when the transaction throws, and when a statement in it failed', async () => {
    // A row for the second transaction's statement to collide with.
    await db.query('INSERT INTO t (id) VALUES (1) ON CONFLICT DO NOTHING');
    await expect(
      db.transaction(async (tx) => {
        await tx.query('INSERT INTO t (id) VALUES (20)');
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    await expect(
      db.transaction(async (tx) => {
        await tx.query('INSERT INTO t (id) VALUES (21)');
        await tx.query('INSERT INTO t (id) VALUES (1)').catch(() => undefined);
      }),
    ).rejects.toThrow(/rolled back/);
    const r = await db.query<{id: number}>('SELECT id FROM t WHERE id IN (20, 21)');
    expect(r.rows).toEqual([]);
  });

  it('serializes each parameter by the type PostgreSQL gives it, on the first run of a text and on later ones', async () => {
    const sql = 'SELECT $1::jsonb AS doc, $2::timestamptz AS at, $3::int[] AS ns, $4::text AS none';
    for (const doc of [{a: [1, 'x"y']}, {b: null}]) {
      const at = new Date('2031-05-06T07:08:09.010Z');
      const r = await db.query(sql, [doc, at, [1, 2], null]);
      expect(r.rows).toEqual([{doc, at, ns: [1, 2], none: null}]);
    }
  });

  it('keeps statements prepared, at most STATEMENT_CACHE of them, and prepares one let go again when it comes back', async () => {
    const texts = Array.from({length: STATEMENT_CACHE + 20}, (_, i) => `SELECT $1::int + ${i} AS v`);
    for (const [i, sql] of texts.entries()) expect((await db.query(sql, [1])).rows).toEqual([{v: 1 + i}]);
    const kept = await db.query<{n: number}>(
      `SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name LIKE 'svc\\_%'`,
    );
    expect(kept.rows[0]?.n).toBeGreaterThan(STATEMENT_CACHE / 2);
    expect(kept.rows[0]?.n).toBeLessThanOrEqual(STATEMENT_CACHE);
    expect((await db.query(texts[0] as string, [5])).rows).toEqual([{v: 5}]);
  });

  it('plans a kept statement for its parameters on every run, never with one generic plan made while its table was small', async () => {
    await db.query('CREATE TABLE grows (id int PRIMARY KEY, note text)');
    const sql = 'SELECT note FROM grows WHERE id = $1';
    for (let i = 0; i < 8; i++) expect((await db.query(sql, [i])).rows).toEqual([]);
    await db.query(`INSERT INTO grows SELECT g, 'n' || g FROM generate_series(1, 20000) g`);
    expect((await db.query(sql, [12345])).rows).toEqual([{note: 'n12345'}]);
    const plans = await db.query<{generic: number; custom: number}>(
      'SELECT generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements WHERE statement = $1',
      [sql],
    );
    expect(plans.rows).toEqual([{generic: 0, custom: 9}]);
  });

  it('runs a kept statement again after its table changed shape, with the new columns', async () => {
    await db.query('CREATE TABLE shape (id int)');
    await db.query('INSERT INTO shape VALUES (1)');
    const sql = 'SELECT * FROM shape WHERE id = $1';
    expect((await db.query(sql, [1])).rows).toEqual([{id: 1}]);
    await db.script?.(`ALTER TABLE shape ADD COLUMN label text DEFAULT 'x'`);
    expect((await db.query(sql, [1])).rows).toEqual([{id: 1, label: 'x'}]);
  });

  it('answers statements sent all at once each with its own result, a failing one among them', async () => {
    const sql = 'SELECT 10 / $1::int AS v';
    const all = await Promise.allSettled(Array.from({length: 120}, (_, i) => db.query(sql, [i % 7])));
    for (const [i, outcome] of all.entries()) {
      if (i % 7 === 0) expect(outcome).toMatchObject({status: 'rejected', reason: {code: '22012'}});
      else
        expect(outcome).toMatchObject({status: 'fulfilled', value: {rows: [{v: Math.trunc(10 / (i % 7))}]}});
    }
  });

  it('refuses statements once closed, and a second close is harmless', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-thread-close-'));
    try {
      await copyTemplate(await ensureTemplate(), join(dir, PGDATA));
      const own = await openPGliteThread(join(dir, PGDATA));
      expect((await own.query('SELECT 1 AS one')).rows).toEqual([{one: 1}]);
      await own.close();
      await expect(own.query('SELECT 1')).rejects.toThrow(/closed|stopped/);
      await own.close();
    } finally {
      await rm(dir, {recursive: true, force: true});
    }
  });

  it('fails to open a data dir that is not one, with PGlite reporting why', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-thread-bad-'));
    try {
      const bad = join(dir, 'not-a-database');
      await writeFile(bad, 'plain file');
      await expect(openPGliteThread(bad)).rejects.toThrow();
    } finally {
      await rm(dir, {recursive: true, force: true});
    }
  });

  it('in memory: opens the template migrated, keeps what is written, and ends without a trace on discard', async () => {
    const own = await openPGliteThreadInMemory(() => ensureTemplate());
    expect(
      (await own.query<{n: number}>('SELECT count(*)::int AS n FROM schema_migrations')).rows[0]?.n,
    ).toBe((await listMigrations()).length);
    await own.query(`INSERT INTO emulator_meta (key, value) VALUES ('probe', 'kept')`);
    expect((await own.query('SELECT value FROM emulator_meta WHERE key = $1', ['probe'])).rows).toEqual([
      {value: 'kept'},
    ]);
    await own.discard();
    await expect(own.query('SELECT 1')).rejects.toThrow(/closed|stopped/);
  });

  it('in memory: a template that cannot be read fails the open and ends the thread', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-thread-no-template-'));
    try {
      await expect(openPGliteThreadInMemory(async () => dir)).rejects.toThrow(/template\.json/);
    } finally {
      await rm(dir, {recursive: true, force: true});
    }
  });

  it('opens from a process started with --input-type=module (the built module, as a script would load it)', async () => {
    assertFreshBuild();
    const built = fileURLToPath(new URL('../../../dist/src/emulator/db/pglite-thread.js', import.meta.url));
    const code = `
      const {openPGliteThread} = await import(${JSON.stringify(built)});
      const db = await openPGliteThread(${JSON.stringify(join(scratch, 'second', PGDATA))});
      const r = await db.query('SELECT 41 + 1 AS n');
      await db.close();
      process.stdout.write(JSON.stringify(r.rows));`;
    await copyTemplate(await ensureTemplate(), join(scratch, 'second', PGDATA));
    const {stdout} = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', code]);
    expect(JSON.parse(stdout)).toEqual([{n: 42}]);
  });
});
