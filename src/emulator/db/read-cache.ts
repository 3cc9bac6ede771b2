// Keeps hot reads (the org, its keys and endpoints) in memory so an authenticated GET needs no query.
// Every write through the emulator's Database bumps a generation number and so invalidates every
// entry at once: nothing has to remember which write affects which read, and other parts of the
// emulator (the delivery engine) that write with plain SQL invalidate the cache without knowing it.
// Writes made by another process sharing a PostgreSQL arrive as notifications (see notify.ts) and call
// invalidate(); a request may come before that word does, so there a request's reads trust the cache only once
// this process has heard every write committed before the request began (`trusted`, read-barrier.ts).
import type {Database, Queryable} from './database.js';

export interface WriteTrackedDatabase extends Database {
  /** Changes around every statement that writes a watched table, and after a transaction that did. */
  readonly generation: number;
  /** A watched table changed elsewhere (another process): nothing read before now may be served again. */
  invalidate(): void;
  /**
   * Tells `listener` of each watched or noticed table written, once the write is committed (the statement
   * returned, or its transaction ended).
   */
  onCommit(listener: (table: string) => void): () => void;
}

export interface TrackWritesOptions {
  /**
   * Awaited after a write to a watched table is committed, before the caller goes on: on a shared database, until
   * the other processes have been sent word of it.
   */
  afterWrite?: () => Promise<void>;
  /** Tables whose committed writes are only told to `onCommit` listeners: they leave the cache alone. */
  noticedTables?: readonly string[];
}

const READ_ONLY = /^\s*(SELECT|SHOW|EXPLAIN)\b/i;

/**
 * Begins a statement that writes a watched table without changing anything the cache serves: the stamp of a key's
 * last use, whose newest value this process keeps in memory and merges into what it reads (authenticator.ts).
 * Counted as a write, it cost every authenticated request the cached org, keys and endpoints of the one before it.
 * Other processes sharing a PostgreSQL still hear of it, from the table's trigger.
 */
export const LEAVES_CACHE = '/* leaves the read cache */ ';

/**
 * watchedTables: the tables whose rows are cached. Writes elsewhere (deliveries, events: the busy
 * tables of the delivery worker) leave the cache alone. Deleting an org cascades, and its statement
 * writes `orgs`, which is watched.
 */
export function trackWrites(
  db: Database,
  watchedTables: readonly string[],
  options: TrackWritesOptions = {},
): WriteTrackedDatabase {
  let generation = 0;
  const afterWrite = options.afterWrite;
  const cached = new Set(watchedTables);
  const listeners = new Set<(table: string) => void>();
  const tell = (tables: Iterable<string>) => {
    for (const table of tables) for (const listener of listeners) listener(table);
  };
  // Named as the target of a write: a statement that only reads a watched table (the event fan-out reads the
  // endpoints) changes nothing cached, and on a shared database would cost every process its cache.
  const target = new RegExp(
    `\\b(?:INSERT\\s+INTO|UPDATE|DELETE\\s+FROM|TRUNCATE)\\s+(?:ONLY\\s+)?(${[...watchedTables, ...(options.noticedTables ?? [])].join('|')})\\b`,
    'gi',
  );
  const tablesWritten = (sql: string): string[] =>
    READ_ONLY.test(sql) || sql.startsWith(LEAVES_CACHE)
      ? []
      : [...sql.matchAll(target)].map((m) => (m[1] as string).toLowerCase());
  const track = <F extends (sql: string, ...rest: never[]) => Promise<unknown>>(
    q: F,
    onWrite: (tables: string[]) => void,
    autocommit: boolean,
  ): F =>
    async function tracked(sql: string, ...rest: never[]) {
      const tables = tablesWritten(sql);
      const writes = tables.some((t) => cached.has(t));
      // Bumped before and after: a read that overlaps the write, in either order, is never kept.
      if (writes) generation++;
      if (tables.length > 0) onWrite(tables);
      let result: unknown;
      try {
        result = await q(sql, ...rest);
      } finally {
        if (writes) generation++;
      }
      // A statement outside a transaction is committed when it returns; a transaction's, at its end.
      if (writes && afterWrite && autocommit) await afterWrite();
      if (autocommit) tell(tables);
      return result;
    } as F;
  // Scripts are tracked by their text like queries; a prepared statement they EXECUTE must not write a watched
  // table (the delivery engine's write events, deliveries and attempts only).
  const trackScript = (q: Queryable) =>
    q.script
      ? {script: track(q.script.bind(q) as NonNullable<Queryable['script']>, () => undefined, true)}
      : {};
  return {
    kind: db.kind,
    get generation() {
      return generation;
    },
    invalidate() {
      generation++;
    },
    onCommit(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    query: track(db.query.bind(db), () => undefined, true),
    ...trackScript(db),
    async transaction(fn) {
      let wrote = false;
      const written = new Set<string>();
      let result: Awaited<ReturnType<typeof fn>>;
      try {
        result = await db.transaction((tx) => {
          const onWrite = (tables: string[]) => {
            for (const table of tables) {
              written.add(table);
              if (cached.has(table)) wrote = true;
            }
          };
          const script = tx.script
            ? {script: track(tx.script.bind(tx) as NonNullable<Queryable['script']>, onWrite, false)}
            : {};
          return fn({query: track(tx.query.bind(tx), onWrite, false), ...script});
        });
      } finally {
        // Its writes become visible to other readers only at commit.
        if (wrote) generation++;
      }
      if (wrote && afterWrite) await afterWrite();
      tell(written);
      return result;
    },
    close: () => db.close(),
  };
}

export interface ReadCacheOptions {
  /**
   * False where other processes' writes may not be known here by the next read (a shared PostgreSQL): then every
   * read goes to the database. Default: always trusted (the database is this process's own).
   */
  trusted?: () => boolean;
  maxEntries?: number;
}

interface Entry {
  generation: number;
  value: Promise<unknown>;
}

export class ReadCache {
  private readonly entries = new Map<string, Entry>();
  private readonly maxEntries: number;

  constructor(
    private readonly db: WriteTrackedDatabase,
    private readonly options: ReadCacheOptions = {},
  ) {
    this.maxEntries = options.maxEntries ?? 1000;
  }

  get<T>(key: string, load: () => Promise<T>): Promise<T> {
    const generation = this.db.generation;
    if (this.options.trusted && !this.options.trusted()) {
      this.entries.clear();
      return load();
    }
    const hit = this.entries.get(key);
    if (hit && hit.generation === generation) return hit.value as Promise<T>;
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    const value = load();
    this.entries.set(key, {generation, value});
    // A failed load is not remembered.
    value.catch(() => {
      if (this.entries.get(key)?.value === value) this.entries.delete(key);
    });
    return value;
  }
}
