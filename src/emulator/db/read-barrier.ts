// On a shared PostgreSQL each process keeps keys, orgs and endpoints in memory, and hears of another process's write
// to them as a notification on a listening connection of its own; a request can arrive before that word does (under
// load, one did). So a request's reads may use the caches only once this process has heard every write committed
// before the request began: the request waits for a sync (its own notification coming back, which PostgreSQL
// delivers after everything committed before it). Requests that arrive together share one sync. When the sync cannot
// come back (the listening connection is down or slow), the request reads the database instead.
import {AsyncLocalStorage} from 'node:async_hooks';
import type {DatabaseSignals} from './notify.js';

export interface ReadBarrier {
  /** Runs one request's work; its reads may use the caches if this process has heard every earlier write. */
  run<T>(work: () => Promise<T>): Promise<T>;
  /** Whether the caches may answer the request running now (false outside run). */
  trusted(): boolean;
}

/** The barrier of a shared PostgreSQL's process. */
export function readBarrier(signals: DatabaseSignals): ReadBarrier {
  const requests = new AsyncLocalStorage<{heard: boolean}>();
  let gathering: Promise<boolean> | undefined;
  /**
   * A sync that starts after now: the requests arriving in this turn of the event loop wait for one together, which
   * starts once the turn has handed them all over (setImmediate), so it covers every one of them.
   */
  const heardAll = (): Promise<boolean> => {
    gathering ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      gathering = undefined;
      return signals.sync();
    });
    return gathering;
  };
  return {
    async run(work) {
      const request = {heard: await heardAll()};
      try {
        return await requests.run(request, work);
      } finally {
        // What the request left running (a stream, a relay's session) reads later than it heard: the database.
        request.heard = false;
      }
    },
    trusted: () => signals.live && requests.getStore()?.heard === true,
  };
}

/** A process whose database is its own (PGlite) has heard every write: its caches always answer. */
export const OWN_DATABASE: ReadBarrier = {
  run: (work) => work(),
  trusted: () => true,
};
