// One database interface over embedded PGlite and a real PostgreSQL, so repositories are written once.
import {readdir, readFile} from 'node:fs/promises';

export interface QueryResult<T> {
  rows: T[];
  rowCount: number;
}

export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<QueryResult<T>>;
  /**
   * PGlite only: a parameterless script sent as one simple-protocol message (an implicit transaction when it
   * holds several statements); resolves to the last statement's result. PGlite's `query` costs six protocol
   * exchanges with the WASM module against two for this, which on short statements is most of their cost.
   */
  script?<T = Record<string, unknown>>(sql: string): Promise<QueryResult<T>>;
}

export interface Database extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /** Runs fn in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

interface PGliteResult<T> {
  rows: T[];
  affectedRows?: number;
}

export interface PGliteLike {
  query<T>(sql: string, params?: unknown[]): Promise<PGliteResult<T>>;
  exec(sql: string): Promise<PGliteResult<unknown>[]>;
  transaction<T>(fn: (tx: {query: PGliteLike['query']; exec: PGliteLike['exec']}) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export function wrapPGlite(pg: PGliteLike): Database {
  const wrap =
    (q: PGliteLike['query']) =>
    async <T>(sql: string, params?: unknown[]): Promise<QueryResult<T>> => {
      const r = await q<T>(sql, params);
      return {rows: r.rows, rowCount: r.affectedRows ?? r.rows.length};
    };
  const wrapScript =
    (exec: PGliteLike['exec']) =>
    async <T>(sql: string): Promise<QueryResult<T>> => {
      const results = await exec(sql);
      const last = results[results.length - 1] ?? {rows: []};
      return {rows: last.rows as T[], rowCount: last.affectedRows ?? last.rows.length};
    };
  return {
    kind: 'pglite',
    query: wrap(pg.query.bind(pg)),
    script: wrapScript(pg.exec.bind(pg)),
    transaction: (fn) =>
      pg.transaction((tx) => fn({query: wrap(tx.query.bind(tx)), script: wrapScript(tx.exec.bind(tx))})),
    close: () => pg.close(),
  };
}

interface PgPoolLike {
  query(sql: string, params?: unknown[]): Promise<{rows: unknown[]; rowCount: number | null}>;
  connect(): Promise<{
    query(sql: string, params?: unknown[]): Promise<{rows: unknown[]; rowCount: number | null}>;
    release(err?: Error | boolean): void;
  }>;
  end(): Promise<void>;
}

export function wrapPgPool(pool: PgPoolLike): Database {
  return {
    kind: 'postgres',
    async query<T>(sql: string, params?: unknown[]) {
      const r = await pool.query(sql, params);
      return {rows: r.rows as T[], rowCount: r.rowCount ?? 0};
    },
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await fn({
          async query<T>(sql: string, params?: unknown[]) {
            const r = await client.query(sql, params);
            return {rows: r.rows as T[], rowCount: r.rowCount ?? 0};
          },
        });
        await client.query('COMMIT');
        client.release();
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        client.release(true);
        throw err;
      }
    },
    close: () => pool.end(),
  };
}

const MIGRATIONS_DIR = new URL('./migrations/', import.meta.url);
const MIGRATION_FILE = /^\d+_.*\.sql$/;

async function migrationFiles(dir: URL): Promise<string[]> {
  return (await readdir(dir)).filter((f) => MIGRATION_FILE.test(f)).sort();
}

export async function listMigrations(dir: URL = MIGRATIONS_DIR): Promise<{version: string; sql: string}[]> {
  return Promise.all(
    (await migrationFiles(dir)).map(async (f) => ({
      version: f.replace(/\.sql$/, ''),
      sql: await readFile(new URL(f, dir), 'utf8'),
    })),
  );
}

/**
 * Runs one migration file whole. PGlite's exec and PostgreSQL's simple query protocol (a query without
 * parameters) both take several statements in one message and split them with the server's own parser, so
 * a function body, a DO block or a string holding a semicolon arrive as written.
 */
export async function runMigrationSql(tx: Queryable, sql: string): Promise<void> {
  if (tx.script) await tx.script(sql);
  else await tx.query(sql);
}

/** The versions recorded as applied; none when the bookkeeping table does not exist yet. */
async function appliedVersions(db: Database): Promise<Set<string> | undefined> {
  try {
    const {rows} = await db.query<{version: string}>('SELECT version FROM schema_migrations');
    return new Set(rows.map((r) => r.version));
  } catch (err) {
    // 42P01 undefined_table: a database no migration has touched.
    if ((err as {code?: string}).code === '42P01') return undefined;
    throw err;
  }
}

/** Applies the numbered migrations not yet applied, each in its own transaction. Returns what it applied. */
export async function migrate(db: Database, options: {dir?: URL} = {}): Promise<string[]> {
  const dir = options.dir ?? MIGRATIONS_DIR;
  // The usual case, an up-to-date database, costs one read and no write.
  const [files, known] = await Promise.all([migrationFiles(dir), appliedVersions(db)]);
  if (known && files.every((f) => known.has(f.replace(/\.sql$/, '')))) return [];

  await db.query(
    'CREATE TABLE IF NOT EXISTS schema_migrations (version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
  );
  const applied = new Set(
    (await db.query<{version: string}>('SELECT version FROM schema_migrations')).rows.map((r) => r.version),
  );
  const done: string[] = [];
  for (const m of await listMigrations(dir)) {
    if (applied.has(m.version)) continue;
    await db.transaction(async (tx) => {
      await runMigrationSql(tx, m.sql);
      await tx.query('INSERT INTO schema_migrations (version) VALUES ($1)', [m.version]);
    });
    done.push(m.version);
  }
  return done;
}
