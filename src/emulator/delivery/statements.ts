// Hot statements of the delivery engine, planned once. On PGlite (WASM, one session) planning these CTEs costs
// several times their execution, so they are PREPAREd once and EXECUTEd with inlined, typed literals (EXECUTE
// takes no bind parameters). On PostgreSQL, whose pool has no session affinity, they run as ordinary queries.
//
// PGlite never runs ANALYZE (it has no autovacuum), and a generic plan, once made, is kept until something
// invalidates it. Left to the planner, a plan made while the tables were nearly empty reads them whole, and
// keeps doing so when they hold thousands of rows: the attempt record turned into a nested loop over every
// pending delivery per batch, slower with every row. So each EXECUTE runs with the generic plan forced and with
// whole-table reads, hash and merge joins disabled: whenever its plan is (re)made, it is the one that reaches
// each row through an index, which is what these statements are written for at any table size. The settings
// are SET LOCAL, so they end with the statement's implicit transaction (or the caller's transaction).
import type {Database, QueryResult, Queryable} from '../db/database.js';

export type ParamType =
  | 'text'
  | 'int'
  | 'bigint'
  | 'timestamptz'
  | 'text[]'
  | 'int[]'
  | 'bigint[]'
  | 'timestamptz[]';

export interface Statement {
  /** A name unique within the session. */
  name: string;
  sql: string;
  types: ParamType[];
}

/** See the top of this file: the settings every EXECUTE runs under on PGlite. */
export const INDEX_PLANS =
  'SET LOCAL plan_cache_mode = force_generic_plan; SET LOCAL enable_seqscan = off; ' +
  'SET LOCAL enable_hashjoin = off; SET LOCAL enable_mergejoin = off; ';

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
    const execute = `EXECUTE ${statement.name}(${args})`;
    return q.script ? q.script<T>(`${INDEX_PLANS}${execute}`) : q.query<T>(execute);
  }

  async #prepare(q: Queryable, statement: Statement): Promise<void> {
    // One statement that prepares only if the session lacks it: another engine on this session (a restarted
    // worker, a test) may have prepared it, and two callers may get here at once. A PREPARE tried and failed
    // would abort the caller's transaction; this never fails for that reason.
    if (statement.sql.includes(PREPARE_QUOTE) || !/^[a-z_][a-z0-9_]*$/.test(statement.name)) {
      throw new Error(`statement ${statement.name} cannot be prepared safely`);
    }
    const prepare = `PREPARE ${statement.name} (${statement.types.join(', ')}) AS ${statement.sql}`;
    const sql = `DO $svc_do$ BEGIN
      IF NOT EXISTS (SELECT 1 FROM pg_prepared_statements WHERE name = '${statement.name}') THEN
        EXECUTE ${PREPARE_QUOTE}${prepare}${PREPARE_QUOTE};
      END IF;
    END $svc_do$`;
    await (q.script ? q.script(sql) : q.query(sql));
    this.#prepared.add(statement.name);
  }
}

const PREPARE_QUOTE = '$svc_prepare$';

/** An array element's text, escaped for the inside of a double-quoted array item. */
function arrayElement(value: unknown, type: ParamType): string {
  let text: string;
  if (type === 'int' || type === 'bigint') {
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
    case 'int':
    case 'bigint': {
      const n = Number(value);
      if (!Number.isSafeInteger(n)) throw new TypeError(`not an integer: ${String(value)}`);
      // Parenthesised: `-2147483648::int` would cast before negating, and overflow.
      return `(${n})::${type}`;
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
