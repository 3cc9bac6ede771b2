// Word that deliveries changed (attempts recorded, deliveries made, resends): what a wait for a delivery listens
// to instead of reading the database over and over. Fed by this process's worker and, on a shared PostgreSQL,
// by the other processes' notifications. Its waits run on the injected timers.
//
// A change may name what it touched (the ids of its deliveries and of their events): then only the watches of
// those ids wake, so a hundred orgs each waiting for their own delivery do not all read the database again at
// every attempt any one of them records. A change that names nothing (another process's word, a new event) wakes
// every watch.
import {realTimers, type Timers} from '../clock.js';

/** Listens for changes to what it names; see DeliveryChanges.watch. */
export interface DeliveryWatch {
  /** From now on: a change before the next `next()` makes it resolve at once. */
  clear(): void;
  /** Resolves true once a change it listens to came since `clear()`, false after `timeoutMs` or when `signal` aborts. */
  next(timeoutMs: number, signal?: AbortSignal): Promise<boolean>;
  /** Stops listening. */
  close(): void;
}

interface Watcher {
  changed: boolean;
  wake: (() => void) | undefined;
}

export class DeliveryChanges {
  #version = 0;
  #wakes = 0;
  readonly #waiters = new Set<() => void>();
  /** The watches of each id named by one, and those that name none (every change is theirs). */
  readonly #byId = new Map<string, Set<Watcher>>();
  readonly #timers: Timers;

  constructor(timers: Timers = realTimers) {
    this.#timers = timers;
  }

  /** A count that grows with every change: take it before a read, and wait for anything after it. */
  get version(): number {
    return this.#version;
  }

  /**
   * How many times a watch was woken by a change since the emulator started (each wake is one more read of the
   * database by whoever waits): diagnostics, and what shows that a change wakes only the watches it concerns.
   */
  get wakes(): number {
    return this.#wakes;
  }

  /** Something changed: `ids` (delivery and event ids) when known; without them every watch wakes. */
  changed(ids?: Iterable<string>): void {
    this.#version += 1;
    for (const wake of [...this.#waiters]) wake();
    if (ids === undefined) {
      for (const watchers of this.#byId.values()) for (const w of watchers) this.#wake(w);
      return;
    }
    for (const id of ids) {
      const watchers = this.#byId.get(id);
      if (watchers) for (const w of watchers) this.#wake(w);
    }
  }

  #wake(w: Watcher): void {
    if (w.changed) return;
    w.changed = true;
    this.#wakes += 1;
    const wake = w.wake;
    w.wake = undefined;
    wake?.();
  }

  /**
   * Listens for the changes that name any of `ids` (a delivery's id, an event's), and for those that name nothing.
   * Take it before the read that may find nothing, so a change between that read and the wait is not missed.
   */
  watch(ids: readonly string[]): DeliveryWatch {
    const w: Watcher = {changed: false, wake: undefined};
    for (const id of ids) {
      let watchers = this.#byId.get(id);
      if (!watchers) {
        watchers = new Set();
        this.#byId.set(id, watchers);
      }
      watchers.add(w);
    }
    return {
      clear: () => {
        w.changed = false;
      },
      next: (timeoutMs, signal) => {
        if (w.changed) return Promise.resolve(true);
        if (signal?.aborted) return Promise.resolve(false);
        return new Promise((resolve) => {
          const done = (changed: boolean) => {
            cancel();
            w.wake = undefined;
            signal?.removeEventListener('abort', aborted);
            resolve(changed);
          };
          const aborted = () => done(false);
          const cancel = this.#timers.setTimeout(() => done(false), Math.max(0, timeoutMs));
          w.wake = () => done(true);
          signal?.addEventListener('abort', aborted, {once: true});
        });
      },
      close: () => {
        w.wake = undefined;
        for (const id of ids) {
          const watchers = this.#byId.get(id);
          watchers?.delete(w);
          if (watchers?.size === 0) this.#byId.delete(id);
        }
      },
    };
  }

  /** The real milliseconds left of `timeoutMs` counted from now, each time the function returned is called. */
  countdown(timeoutMs: number): () => number {
    const end = this.#timers.now() + timeoutMs;
    return () => end - this.#timers.now();
  }

  /** Resolves true once a change comes after `version`, false after `timeoutMs` or when `signal` aborts. */
  after(version: number, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    if (this.#version > version) return Promise.resolve(true);
    if (signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const done = (changed: boolean) => {
        cancel();
        this.#waiters.delete(wake);
        signal?.removeEventListener('abort', aborted);
        resolve(changed);
      };
      const wake = () => done(true);
      const aborted = () => done(false);
      const cancel = this.#timers.setTimeout(() => done(false), Math.max(0, timeoutMs));
      this.#waiters.add(wake);
      signal?.addEventListener('abort', aborted, {once: true});
    });
  }
}
