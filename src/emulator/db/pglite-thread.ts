// PGlite on a thread of its own. PostgreSQL compiled to WASM runs synchronously: on the main thread every
// statement holds up the event loop, so HTTP (the API, the delivery lanes) and the database take turns on one
// core. Here the database runs beside them; the main thread keeps a thin Database that posts each statement.
//
// PGlite is one session. A transaction therefore holds the session: statements from outside it wait until it
// ends, as PGlite's own transaction() makes them wait, and the transaction's statements go straight through.
import {createRequire} from 'node:module';
import {Worker} from 'node:worker_threads';
import type {Database, QueryResult, Queryable} from './database.js';
import {IN_MEMORY_TUNING, pgliteWasmModule, TUNING} from './pglite.js';
import {readTemplate, type TemplateContents} from './template.js';

interface Reply {
  id: number;
  ok: boolean;
  result?: QueryResult<unknown> & {command?: string};
  error?: Record<string, unknown>;
}

/** How many prepared statements the database thread keeps: the emulator makes about 190 calls of query() (a run of a scenario uses 36 texts), a few of them with texts that vary. */
export const STATEMENT_CACHE = 400;

/**
 * A kept statement is planned again on every run, for its parameters, as PGlite's query() plans each statement.
 * Left to PostgreSQL's default, after five runs a statement may switch to one generic plan and keep it until
 * something invalidates it; PGlite never runs ANALYZE, so a plan chosen while a table was nearly empty would stay
 * whatever the table grows to (the trap delivery/statements.ts describes, where it made the attempt record read
 * every pending delivery). What a kept statement saves is its parse, rewrite and description, and five calls
 * into PostgreSQL. The delivery engine's own prepared statements choose their plans themselves.
 */
const KEPT_PLANS = ['-c', 'plan_cache_mode=force_custom_plan'];

// CommonJS, evaluated by the worker: it loads PGlite from the path the main thread resolved (an evaluated
// worker has no module of its own to resolve from), opens the database with the module compiled on the main
// thread, then answers each message in arrival order, one at a time.
// The database is a data dir on disk, or, in memory, PGlite's in-memory file system filled from a template the
// main thread reads while PGlite starts here (its first message, before any statement).
//
// Every statement of query() goes in as a named prepared statement, kept for the next time the same text comes:
// PGlite's own query() parses, plans and describes it again on every call, in six calls into PostgreSQL, where a
// kept statement is bound, planned (KEPT_PLANS) and run in one (its parameters' types and its columns were
// described when it was prepared). Its parameters are serialized as PGlite's query() does, by those types. The
// emulator's statements are a fixed set of texts, so few are kept; past STATEMENT_CACHE the least recently used go.
const WORKER_SOURCE = `
const {parentPort, workerData} = require('node:worker_threads');
const {PGlite, protocol, parse} = require(workerData.entry);
const wire = protocol.serialize;
const STATEMENT_CACHE = ${STATEMENT_CACHE};
const ERROR_FIELDS = ['code', 'detail', 'hint', 'severity', 'constraint', 'table', 'column', 'schema', 'position', 'routine'];
const plainError = (err) => {
  const out = {message: err && err.message ? String(err.message) : String(err), name: err && err.name ? String(err.name) : 'Error'};
  for (const k of ERROR_FIELDS) if (err && err[k] !== undefined) out[k] = err[k];
  return out;
};
let templateArrived;
const template = new Promise((resolve) => {
  templateArrived = resolve;
});
const options = {
  pgliteWasmModule: workerData.module,
  startParams: [...(PGlite.defaultStartParams || []), ...workerData.tuning],
};
// PGlite's in-memory file system, filled from the template. PGlite calls initialSyncFs once its runtime is up and
// before PostgreSQL looks at its data directory. (A plain object: PGlite's own base class would load a module
// of its own for nothing.)
const inMemory = () => {
  const filesystem = {
    async init(pg, emscriptenOpts) {
      this.pg = pg;
      return {emscriptenOpts};
    },
    async initialSyncFs() {
      const {dirs, files, bytes} = await template;
      const FS = this.pg.Module.FS;
      const root = (PGlite.paths && PGlite.paths.PGDATA) || '/pglite/data';
      FS.mkdirTree(root);
      for (const dir of dirs) FS.mkdirTree(root + '/' + dir);
      // Each file is a view of the one buffer; the in-memory file system copies a file only once it grows.
      for (const file of files)
        FS.writeFile(root + '/' + file.path, bytes.subarray(file.offset, file.offset + file.size), {canOwn: true});
    },
    async syncToFs() {},
    async closeFs() {
      this.pg.Module.FS.quit();
    },
    async dumpTar() {
      throw new Error('a database held in memory by the emulator is not dumped');
    },
  };
  return PGlite.create({...options, fs: filesystem});
};
const opening = workerData.dataDir ? PGlite.create(workerData.dataDir, options) : inMemory();
opening.then(
  () => parentPort.postMessage({id: 0, ok: true}),
  (err) => parentPort.postMessage({id: 0, ok: false, error: plainError(err)}),
);
// Statement text -> {name, types, described}, least recently used first: the types of its parameters, and the
// columns of its rows as PostgreSQL described them when it was prepared (none for a statement without rows).
const statements = new Map();
let named = 0;
// What follows the bind of every statement run, the same bytes each time.
const RUN = Buffer.concat([wire.execute({}), wire.sync()]);
const send = (pg, parts) => pg.execProtocol(Buffer.concat(parts), {syncToFs: false, throwOnError: false});
const failure = (messages) => messages.find((msg) => msg instanceof Error);
const prepare = async (pg, sql) => {
  const kept = statements.get(sql);
  if (kept) {
    statements.delete(sql);
    statements.set(sql, kept);
    return kept;
  }
  const name = 'svc_' + ++named;
  const {messages} = await send(pg, [wire.parse({name, text: sql}), wire.describe({type: 'S', name}), wire.sync()]);
  const err = failure(messages);
  if (err) throw err;
  const columns = messages.find((msg) => msg.name === 'rowDescription');
  const statement = {name, types: parse.parseDescribeStatementResults(messages), described: columns ? [columns] : []};
  statements.set(sql, statement);
  if (statements.size > STATEMENT_CACHE) {
    const [oldest, old] = statements.entries().next().value;
    statements.delete(oldest);
    await send(pg, [wire.close({type: 'S', name: old.name}), wire.sync()]);
  }
  return statement;
};
const query = async (pg, sql, params, again = true) => {
  const statement = await prepare(pg, sql);
  const values = (params || []).map((value, i) => {
    if (value === null || value === undefined) return null;
    const serialize = pg.serializers[statement.types[i]];
    return serialize ? serialize(value) : value.toString();
  });
  const {messages} = await send(pg, [wire.bind({statement: statement.name, values}), RUN]);
  const err = failure(messages);
  if (err) {
    // A kept plan whose result type a schema change altered is prepared afresh, and the statement made again
    // when no transaction was open (one that failed stays failed).
    if (err.code === '0A000' && statements.get(sql) === statement) {
      statements.delete(sql);
      const ready = messages.find((msg) => msg.name === 'readyForQuery');
      if (again && ready && ready.status === 'I') return query(pg, sql, params, false);
    }
    throw err;
  }
  // The columns come from the description kept at prepare: a change of them fails the run above (0A000).
  const r = parse.parseResults(statement.described.concat(messages), pg.parsers)[0] || {rows: []};
  return {rows: r.rows, rowCount: r.affectedRows ?? r.rows.length};
};
const answer = async (m) => {
  try {
    const pg = await opening;
    if (m.op === 'close') {
      await pg.close();
      parentPort.postMessage({id: m.id, ok: true});
      parentPort.close();
      return;
    }
    let result;
    if (m.op === 'query') {
      result = await query(pg, m.sql, m.params);
    } else {
      const all = await pg.exec(m.sql);
      const last = all[all.length - 1] || {rows: []};
      result = {rows: last.rows, rowCount: last.affectedRows ?? last.rows.length, command: last.command};
    }
    parentPort.postMessage({id: m.id, ok: true, result});
  } catch (err) {
    parentPort.postMessage({id: m.id, ok: false, error: plainError(err)});
  }
};
// One message at a time: a kept statement goes to PostgreSQL past PGlite's own queue, so nothing may run beside it.
let turn = Promise.resolve();
parentPort.on('message', (m) => {
  if (m.op === 'template') {
    templateArrived(m.template);
    return;
  }
  turn = turn.then(() => answer(m));
});
`;

/** An Error with the fields PostgreSQL reported (code, constraint, …), as callers of the in-thread PGlite see. */
function toError(fields: Record<string, unknown> | undefined): Error {
  const {message, name, ...rest} = fields ?? {};
  const err = Object.assign(new Error(String(message ?? 'database error')), rest);
  if (typeof name === 'string' && name !== 'Error') err.name = name;
  return err;
}

/**
 * The worker's Node options: left unset, it inherits the parent's as they are. The source is CommonJS, so a
 * parent started with --input-type=module hands over the rest without it; options given explicitly are checked
 * again, and some a process may hold are refused in a worker (Node 24's test runner starts its test files with
 * --v8-pool-size, --secure-heap and others), so they are handed over only when they must be.
 */
function workerExecArgv(): string[] | undefined {
  if (!process.execArgv.some((arg) => arg.startsWith('--input-type'))) return undefined;
  return process.execArgv.filter((arg) => !arg.startsWith('--input-type'));
}

class ThreadDatabase implements Database {
  readonly kind = 'pglite' as const;
  readonly #worker: Worker;
  readonly #pending = new Map<number, {resolve(r: Reply): void; reject(e: Error): void}>();
  #nextId = 1;
  #stopped: Error | undefined;
  /** Settles when the transaction holding the session ends; undefined while none does. */
  #held: Promise<void> | undefined;
  #opened: Promise<void>;

  /** dataDir undefined: in memory, filled from the template sent with sendTemplate(). */
  constructor(dataDir: string | undefined) {
    this.#worker = new Worker(WORKER_SOURCE, {
      eval: true,
      execArgv: workerExecArgv(),
      workerData: {
        entry: createRequire(import.meta.url).resolve('@electric-sql/pglite'),
        dataDir,
        module: pgliteWasmModule(),
        tuning: [...TUNING, ...(dataDir === undefined ? IN_MEMORY_TUNING : []), ...KEPT_PLANS],
      },
    });
    this.#opened = new Promise<void>((resolve, reject) => {
      this.#pending.set(0, {
        resolve: (r) => (r.ok ? resolve() : reject(toError(r.error))),
        reject,
      });
    });
    // Awaited by whoever opens; a database given up before it opened must not leave its rejection unhandled.
    this.#opened.catch(() => undefined);
    this.#worker.on('message', (reply: Reply) => {
      const waiter = this.#pending.get(reply.id);
      if (!waiter) return;
      this.#pending.delete(reply.id);
      waiter.resolve(reply);
    });
    this.#worker.on('error', (err) => this.#fail(err));
    this.#worker.on('exit', (code) =>
      this.#fail(new Error(`the database thread stopped (exit code ${code})`)),
    );
  }

  opened(): Promise<void> {
    return this.#opened;
  }

  /** The in-memory database's contents; it opens once they arrive. */
  sendTemplate(template: TemplateContents): void {
    // The buffer moves to the thread instead of being copied.
    this.#worker.postMessage({op: 'template', template}, [template.bytes.buffer as ArrayBuffer]);
  }

  #fail(err: Error): void {
    this.#stopped ??= err;
    for (const waiter of this.#pending.values()) waiter.reject(this.#stopped);
    this.#pending.clear();
  }

  #send(op: 'query' | 'exec' | 'close', sql?: string, params?: unknown[]): Promise<Reply> {
    if (this.#stopped) return Promise.reject(this.#stopped);
    const id = this.#nextId++;
    return new Promise<Reply>((resolve, reject) => {
      this.#pending.set(id, {resolve, reject});
      this.#worker.postMessage({id, op, sql, params});
    });
  }

  async #run<T>(
    op: 'query' | 'exec',
    sql: string,
    params?: unknown[],
  ): Promise<QueryResult<T> & {command?: string}> {
    const reply = await this.#send(op, sql, params);
    if (!reply.ok) throw toError(reply.error);
    return reply.result as QueryResult<T> & {command?: string};
  }

  /** Outside a transaction: waits while one holds the session. */
  async #outside<T>(op: 'query' | 'exec', sql: string, params?: unknown[]): Promise<QueryResult<T>> {
    while (this.#held) await this.#held;
    const r = await this.#run<T>(op, sql, params);
    return {rows: r.rows, rowCount: r.rowCount};
  }

  query<T>(sql: string, params?: unknown[]): Promise<QueryResult<T>> {
    return this.#outside<T>('query', sql, params);
  }

  script<T>(sql: string): Promise<QueryResult<T>> {
    return this.#outside<T>('exec', sql);
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    while (this.#held) await this.#held;
    let release: () => void = () => undefined;
    this.#held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tx: Queryable = {
      query: async <R>(sql: string, params?: unknown[]) => {
        const r = await this.#run<R>('query', sql, params);
        return {rows: r.rows, rowCount: r.rowCount};
      },
      script: async <R>(sql: string) => {
        const r = await this.#run<R>('exec', sql);
        return {rows: r.rows, rowCount: r.rowCount};
      },
    };
    try {
      await this.#run('exec', 'BEGIN');
      let result: T;
      try {
        result = await fn(tx);
      } catch (err) {
        await this.#run('exec', 'ROLLBACK').catch(() => undefined);
        throw err;
      }
      // A transaction in which a statement failed ends in ROLLBACK whatever COMMIT asks for.
      const end = await this.#run('exec', 'COMMIT');
      if (end.command === 'ROLLBACK')
        throw new Error('the transaction was rolled back: a statement in it failed');
      return result;
    } finally {
      this.#held = undefined;
      release();
    }
  }

  /**
   * Ends the database thread without shutting PostgreSQL down: for a throwaway copy that is deleted next, whose
   * clean shutdown (a checkpoint written to files about to go) is time spent for nothing.
   */
  async discard(): Promise<void> {
    if (this.#stopped) return;
    while (this.#held) await this.#held;
    this.#stopped = new Error('the database is closed');
    await this.#worker.terminate();
  }

  async close(): Promise<void> {
    if (this.#stopped) return;
    while (this.#held) await this.#held;
    try {
      const reply = await this.#send('close');
      if (!reply.ok) throw toError(reply.error);
    } finally {
      this.#stopped ??= new Error('the database is closed');
      await this.#worker.terminate();
    }
  }
}

/** Opens the PGlite data dir at `dataDir` on its own thread. */
export async function openPGliteThread(dataDir: string): Promise<Database & {discard(): Promise<void>}> {
  const db = new ThreadDatabase(dataDir);
  try {
    await db.opened();
  } catch (err) {
    await db.close().catch(() => undefined);
    throw err;
  }
  return db;
}

/**
 * Opens a database held in memory only, on its own thread, with the contents of the template whose directory
 * `template` finds (ensureTemplate). The template is found and read here while the thread starts PGlite.
 */
export async function openPGliteThreadInMemory(
  template: () => Promise<string>,
): Promise<Database & {discard(): Promise<void>}> {
  const db = new ThreadDatabase(undefined);
  try {
    db.sendTemplate(readTemplate(await template()));
    await db.opened();
  } catch (err) {
    // Nothing to shut down cleanly: the database was never anywhere but in this thread's memory.
    await db.discard();
    throw err;
  }
  return db;
}
