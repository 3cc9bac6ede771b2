// Keeps hot reads (the org, its keys and endpoints) in memory so an authenticated GET needs no query.
// Every write through the emulator's Database bumps a generation number and so invalidates every
// entry at once: nothing has to remember which write affects which read, and other parts of the
// emulator (the delivery engine) that write with plain SQL invalidate the cache without knowing it.
import type {Database, Queryable} from './database.js';

export interface WriteTrackedDatabase extends Database {
  /** Changes after every statement that is not a plain SELECT, and after every transaction. */
  readonly generation: number;
}

const READ_ONLY = /^\s*(SELECT|SHOW|EXPLAIN)\b/i;

export function trackWrites(db: Database): WriteTrackedDatabase {
  let generation = 0;
  const track = (q: Queryable['query']): Queryable['query'] =>
    async function query<T>(sql: string, params?: unknown[]) {
      const writes = !READ_ONLY.test(sql) || /\bFOR\s+UPDATE\b/i.test(sql);
      // Bumped before and after: a read that overlaps the write, in either order, is never kept.
      if (writes) generation++;
      try {
        return await q<T>(sql, params);
      } finally {
        if (writes) generation++;
      }
    };
  return {
    kind: db.kind,
    get generation() {
      return generation;
    },
    query: track(db.query.bind(db)),
    async transaction(fn) {
      generation++;
      try {
        return await db.transaction((tx) => fn({query: track(tx.query.bind(tx))}));
      } finally {
        generation++;
      }
    },
    close: () => db.close(),
  };
}

export interface ReadCacheOptions {
  /**
   * Entries older than this are reloaded even without a write here. Only needed when another
   * process can write the same database (PostgreSQL); undefined = no age limit.
   */
  ttlMs?: number;
  maxEntries?: number;
}

interface Entry {
  generation: number;
  at: number;
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
    const now = performance.now();
    const hit = this.entries.get(key);
    if (
      hit &&
      hit.generation === generation &&
      (this.options.ttlMs === undefined || now - hit.at < this.options.ttlMs)
    ) {
      return hit.value as Promise<T>;
    }
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    const value = load();
    this.entries.set(key, {generation, at: now, value});
    // A failed load is not remembered.
    value.catch(() => {
      if (this.entries.get(key)?.value === value) this.entries.delete(key);
    });
    return value;
  }
}
