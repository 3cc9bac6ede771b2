// Word that deliveries changed (attempts recorded, deliveries made, resends): what a wait for a delivery listens
// to instead of reading the database over and over. Fed by this process's worker and, on a shared PostgreSQL,
// by the other processes' notifications.

export class DeliveryChanges {
  #version = 0;
  readonly #waiters = new Set<() => void>();

  /** A count that grows with every change: take it before a read, and wait for anything after it. */
  get version(): number {
    return this.#version;
  }

  changed(): void {
    this.#version += 1;
    for (const wake of [...this.#waiters]) wake();
  }

  /** Resolves true once a change comes after `version`, false after `timeoutMs` or when `signal` aborts. */
  after(version: number, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    if (this.#version > version) return Promise.resolve(true);
    if (signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const done = (changed: boolean) => {
        clearTimeout(timer);
        this.#waiters.delete(wake);
        signal?.removeEventListener('abort', aborted);
        resolve(changed);
      };
      const wake = () => done(true);
      const aborted = () => done(false);
      const timer = setTimeout(() => done(false), Math.max(0, timeoutMs));
      this.#waiters.add(wake);
      signal?.addEventListener('abort', aborted, {once: true});
    });
  }
}
