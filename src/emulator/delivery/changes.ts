// Word that deliveries changed (attempts recorded, deliveries made, resends): what a wait for a delivery listens
// to instead of reading the database over and over. Fed by this process's worker and, on a shared PostgreSQL,
// by the other processes' notifications. Its waits run on the injected timers.
import {realTimers, type Timers} from '../clock.js';

export class DeliveryChanges {
  #version = 0;
  readonly #waiters = new Set<() => void>();
  readonly #timers: Timers;

  constructor(timers: Timers = realTimers) {
    this.#timers = timers;
  }

  /** A count that grows with every change: take it before a read, and wait for anything after it. */
  get version(): number {
    return this.#version;
  }

  changed(): void {
    this.#version += 1;
    for (const wake of [...this.#waiters]) wake();
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
