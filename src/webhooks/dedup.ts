// Handling each event id once (the same event can arrive more than once). The store is
// pluggable so a receiver with several processes can put the ids in Redis or SQL instead of memory.
import {RETENTION_MS} from '../definitions.js';

/**
 * Where processed event ids are kept. `add` must be an atomic insert-if-absent (Redis `SET NX PX`,
 * SQL `INSERT … ON CONFLICT DO NOTHING`): that is what stops two concurrent deliveries both running.
 */
export interface DeduplicationStore {
  /** Records `id` for `ttlMs`; true when it was not there yet. */
  add(id: string, ttlMs: number): boolean | Promise<boolean>;
  has(id: string): boolean | Promise<boolean>;
  delete(id: string): void | Promise<void>;
}

export interface MemoryDeduplicationStoreOptions {
  /** Oldest ids are forgotten first beyond this many. Default 50,000. */
  maxEntries?: number;
  /** Milliseconds clock, injectable for tests. Default Date.now. */
  now?: () => number;
}

/** A bounded in-process store: entries expire after their TTL, and the oldest go first when full. */
export class MemoryDeduplicationStore implements DeduplicationStore {
  // Map keeps insertion order, so the first entries are the oldest: eviction is O(1) per entry.
  readonly #expiries = new Map<string, number>();
  readonly #maxEntries: number;
  readonly #now: () => number;

  constructor(options: MemoryDeduplicationStoreOptions = {}) {
    const max = options.maxEntries ?? 50_000;
    if (!Number.isInteger(max) || max < 1)
      throw new TypeError('`maxEntries` must be a whole number, 1 or more.');
    this.#maxEntries = max;
    this.#now = options.now ?? Date.now;
  }

  get size(): number {
    return this.#expiries.size;
  }

  has(id: string): boolean {
    const expiry = this.#expiries.get(id);
    if (expiry === undefined) return false;
    if (expiry > this.#now()) return true;
    this.#expiries.delete(id);
    return false;
  }

  add(id: string, ttlMs: number): boolean {
    if (this.has(id)) return false;
    const now = this.#now();
    this.#evict(now);
    this.#expiries.set(id, now + ttlMs);
    return true;
  }

  delete(id: string): void {
    this.#expiries.delete(id);
  }

  #evict(now: number): void {
    for (const [key, expiry] of this.#expiries) {
      if (expiry > now && this.#expiries.size < this.#maxEntries) break;
      this.#expiries.delete(key);
    }
  }
}

export interface EventDeduplicatorOptions {
  store?: DeduplicationStore;
  /**
   * How long an id is remembered. Default 30 days: svc keeps events that long, so nothing older can
   * be sent again; retries alone end after about a day.
   */
  ttlMs?: number;
}

export type OnceResult<T> = {duplicate: true} | {duplicate: false; value: T};

/** As long as the service keeps events (RETENTION_MS): nothing older can be sent again. */
export const DEFAULT_DEDUP_TTL_MS = RETENTION_MS;

/**
 * ```ts
 * const dedup = new EventDeduplicator();
 * const result = await dedup.once(event.id, () => handle(event));
 * // result.duplicate: answer 2xx anyway, so the sender stops retrying.
 * ```
 */
export class EventDeduplicator {
  readonly #store: DeduplicationStore;
  readonly #ttlMs: number;

  constructor(options: EventDeduplicatorOptions = {}) {
    const ttl = options.ttlMs ?? DEFAULT_DEDUP_TTL_MS;
    if (typeof ttl !== 'number' || !(ttl > 0)) throw new TypeError('`ttlMs` must be a positive number.');
    this.#ttlMs = ttl;
    this.#store = options.store ?? new MemoryDeduplicationStore();
  }

  /** True when the id was processed, or is being processed through `once`. */
  async seen(id: string): Promise<boolean> {
    return this.#store.has(id);
  }

  /** Records the id as handled; true when it had not been recorded before. */
  async markProcessed(id: string): Promise<boolean> {
    return this.#store.add(id, this.#ttlMs);
  }

  /** Forgets the id, e.g. when handling failed after markProcessed and a retry should run it again. */
  async forget(id: string): Promise<void> {
    await this.#store.delete(id);
  }

  /**
   * Runs `handler` unless the id was handled already or is being handled right now. The id is claimed
   * before the handler runs and released if it throws, so the sender's next retry gets another chance.
   * With a synchronous store and handler nothing waits on a promise between the claim and the result:
   * this runs on every delivery.
   */
  once<T>(id: string, handler: () => T | Promise<T>): Promise<OnceResult<T>> {
    let added: boolean | Promise<boolean>;
    try {
      added = this.#store.add(id, this.#ttlMs);
    } catch (err) {
      return Promise.reject(err);
    }
    if (added === true) return this.#run(id, handler);
    if (added === false) return Promise.resolve({duplicate: true});
    return Promise.resolve(added).then((claimed) =>
      claimed ? this.#run(id, handler) : {duplicate: true as const},
    );
  }

  #run<T>(id: string, handler: () => T | Promise<T>): Promise<OnceResult<T>> {
    let value: T | Promise<T>;
    try {
      value = handler();
    } catch (err) {
      return this.#release(id, err);
    }
    if (isThenable(value)) {
      return Promise.resolve(value).then(
        (resolved) => ({duplicate: false as const, value: resolved}),
        (err: unknown) => this.#release(id, err),
      );
    }
    return Promise.resolve({duplicate: false, value});
  }

  async #release(id: string, err: unknown): Promise<never> {
    await this.#store.delete(id);
    throw err;
  }
}

function isThenable<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as {then?: unknown} | null)?.then === 'function';
}
