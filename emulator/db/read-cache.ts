// Keeps hot reads (the org, its keys and endpoints) in memory so an authenticated GET needs no query.
// Every write through the emulator's Database bumps a generation number and so invalidates every
// entry at once: nothing has to remember which write affects which read, and other parts of the
// emulator (the delivery engine) that write with plain SQL invalidate the cache without knowing it.
import type {Database, Queryable} from './database.js';

export interface WriteTrackedDatabase extends Database {
  /** Changes around every statement that writes a watched table, and after a transaction that did. */
  readonly generation: number;
}

const READ_ONLY = /^\s*(SELECT|SHOW|EXPLAIN)\b/i;

/**
 * watchedTables: the tables whose rows are cached. Writes elsewhere (deliveries, events: the busy
 * tables of the delivery worker) leave the cache alone. Deleting an org cascades, and its statement
 * names `orgs`, which is watched.
 */
export function trackWrites(db: Database, watchedTables: readonly string[]): WriteTrackedDatabase {
  let generation = 0;
  const watched = new RegExp(`\\b(${watchedTables.join('|')})\\b`, 'i');
  const writesWatched = (sql: string) => !READ_ONLY.test(sql) && watched.test(sql);
  const track = <F extends (sql: string, ...rest: never[]) => Promise<unknown>>(
    q: F,
    onWrite: () => void,
  ): F =>
    async function tracked(sql: string, ...rest: never[]) {
      const writes = writesWatched(sql);
      // Bumped before and after: a read that overlaps the write, in either order, is never kept.
      if (writes) {
        generation++;
        onWrite();
      }
      try {
        return await q(sql, ...rest);
      } finally {
        if (writes) generation++;
      }
    } as F;
  // Scripts are tracked by their text like queries; a prepared statement they EXECUTE must not write a watched
  // table (the delivery engine's write events, deliveries and attempts only).
  const trackScript = (q: Queryable) =>
    q.script ? {script: track(q.script.bind(q) as NonNullable<Queryable['script']>, () => undefined)} : {};
  return {
    kind: db.kind,
    get generation() {
      return generation;
    },
    query: track(db.query.bind(db), () => undefined),
    ...trackScript(db),
    async transaction(fn) {
      let wrote = false;
      try {
        return await db.transaction((tx) => {
          const onWrite = () => {
            wrote = true;
          };
          const script = tx.script
            ? {script: track(tx.script.bind(tx) as NonNullable<Queryable['script']>, onWrite)}
            : {};
          return fn({query: track(tx.query.bind(tx), onWrite), ...script});
        });
      } finally {
        // Its writes become visible to other readers only at commit.
        if (wrote) generation++;
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
