// Settling: answering only once the attempts a clock move made due have been made and recorded. This process's
// worker says when it has nothing left; on a PostgreSQL shared with other processes, some of those attempts are
// theirs (they claimed first, or hold the endpoint's relay), so the database is asked what is still due, and the
// other processes' word that attempts were recorded is waited for until nothing is.
import type {Clock} from '../clock.js';
import type {Database} from '../db/database.js';
import {vaultUnavailable} from '../operation-error.js';
import type {DeliveryChanges} from './changes.js';
import {countDueAnywhere} from './claim.js';
import type {Timers} from './timers.js';

/** How long a wait for the other processes' word lasts before the database is asked again. */
const LOOK_AGAIN_MS = 250;

export interface SettleOptions {
  /** This process's worker. */
  worker: {settled(): Promise<void>; readonly timeoutMs: number; readonly timers: Timers};
  db: Database;
  clock: Clock;
  /** Word of recorded attempts, this process's and (through the database's signals) the others'. */
  changes: DeliveryChanges;
}

/**
 * Resolves once nothing attemptable is due anywhere. What stays due without any attempt being recorded for longer
 * than one attempt can take (no process can sign, say) is given up on, as this process's own worker does.
 */
export async function settleEverywhere(o: SettleOptions): Promise<void> {
  const quietLimitMs = o.worker.timeoutMs + 5_000;
  let lastChange = o.worker.timers.now();
  for (;;) {
    await o.worker.settled();
    const seen = o.changes.version;
    if ((await countDueAnywhere(o.db, o.clock.now())) === 0) return;
    if (await o.changes.after(seen, LOOK_AGAIN_MS)) lastChange = o.worker.timers.now();
    else if (o.worker.timers.now() - lastChange > quietLimitMs) return;
  }
}

/**
 * A settle, ended when the emulator stops first: what is in flight is cut short then, and is never recorded. The
 * 503 says the clock did move (the move is made before its settle).
 */
export function unlessStopping(settling: Promise<void>, stopping: AbortSignal): Promise<void> {
  const refusal = () =>
    vaultUnavailable('the emulator is stopping: the clock moved, and what that made due was not waited for');
  if (stopping.aborted) {
    settling.catch(() => undefined);
    return Promise.reject(refusal());
  }
  return new Promise((resolve, reject) => {
    const stop = () => reject(refusal());
    stopping.addEventListener('abort', stop, {once: true});
    settling.then(resolve, reject).finally(() => stopping.removeEventListener('abort', stop));
  });
}
