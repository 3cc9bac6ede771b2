// Hot statements of the delivery engine, planned once. On PGlite (WASM, one session) planning these CTEs costs
// several times their execution, so they are PREPAREd once and EXECUTEd with inlined, typed literals (EXECUTE
// takes no bind parameters). On PostgreSQL, whose pool has no session affinity, they run as ordinary queries.
import type {Database, QueryResult, Queryable} from '../db/database.js';

export type ParamType = 'text' | 'int' | 'timestamptz' | 'text[]' | 'int[]' | 'timestamptz[]';

export interface Statement {
  /** A name unique within the session. */
  name: string;
  sql: string;
  types: ParamType[];
}

export class PreparedStatements {
  readonly #usePrepared: boolean;
  readonly #prepared = new Set<string>();

  constructor(db: Pick<Database, 'kind'>) {
    this.#usePrepared = db.kind === 'pglite';
  }

  async run<T>(q: Queryable, statement: Statement, params: unknown[]): Promise<QueryResult<T>> {
    if (!this.#usePrepared) return q.query<T>(statement.sql, params);
    if (!this.#prepared.has(statement.name)) await this.#prepare(q, statement);
    const args = params.map((value, i) => literal(value, statement.types[i] as ParamType)).join(', ');
    return q.query<T>(`EXECUTE ${statement.name}(${args})`);
  }

  async #prepare(q: Queryable, statement: Statement): Promise<void> {
    // Asked rather than tried: a failed PREPARE would abort the caller's transaction. Another engine on this
    // session (a restarted worker, a test) may have prepared it already.
    const known = await q.query('SELECT 1 FROM pg_prepared_statements WHERE name = $1', [statement.name]);
    if (known.rows.length === 0) {
      await q.query(`PREPARE ${statement.name} (${statement.types.join(', ')}) AS ${statement.sql}`);
    }
    this.#prepared.add(statement.name);
  }
}

/** An array element's text, escaped for the inside of a double-quoted array item. */
function arrayElement(value: unknown, type: ParamType): string {
  let text: string;
  if (type === 'int') {
    const n = Number(value);
    if (!Number.isSafeInteger(n)) throw new TypeError(`not an integer: ${String(value)}`);
    text = String(n);
  } else if (type === 'timestamptz') {
    const d = value instanceof Date ? value : new Date(String(value));
    if (!Number.isFinite(d.getTime())) throw new TypeError('not a valid time');
    text = d.toISOString();
  } else text = String(value).replaceAll('\u0000', '');
  return text.replaceAll('\\', '\\\\').replaceAll('"', '\\"');
}

/**
 * A typed SQL literal. Text is single-quoted with quotes doubled (standard_conforming_strings is on, so
 * backslashes are plain characters); NUL, which PostgreSQL text cannot hold, is dropped.
 */
export function literal(value: unknown, type: ParamType): string {
  if (value === null || value === undefined) return `NULL::${type}`;
  if (type.endsWith('[]')) {
    if (!Array.isArray(value)) throw new TypeError(`expected an array for ${type}`);
    // One array literal parsed by array_in, not an ARRAY[...] of casts: a batch of attempts is thousands of values.
    const element = type.slice(0, -2) as ParamType;
    const items = value.map((v) =>
      v === null || v === undefined ? 'NULL' : `"${arrayElement(v, element)}"`,
    );
    return `'{${items.join(',').replaceAll("'", "''")}}'::${type}`;
  }
  switch (type) {
    case 'int': {
      const n = Number(value);
      if (!Number.isSafeInteger(n)) throw new TypeError(`not an integer: ${String(value)}`);
      // Parenthesised: `-2147483648::int` would cast before negating, and overflow.
      return `(${n})::int`;
    }
    case 'timestamptz': {
      const d = value instanceof Date ? value : new Date(String(value));
      if (!Number.isFinite(d.getTime())) throw new TypeError('not a valid time');
      return `'${d.toISOString()}'::timestamptz`;
    }
    default:
      return `'${String(value).replaceAll('\u0000', '').replaceAll("'", "''")}'::text`;
  }
}
