// The real time the delivery engine waits on (leases, sleeps, retries of a failed write), injected as one object
// so a test can fake every wait. The interface and the process's own timers live beside the emulator clock
// (../clock.ts), which is another thing: the time the service's rules run on, which a manual clock stops; leases
// and sleeps run on real time whatever that clock says.
import type {Timers} from '../clock.js';

export {realTimers, type Timers} from '../clock.js';

/** Resolves after `ms` of the given timers. */
export function wait(timers: Timers, ms: number): Promise<void> {
  return new Promise((resolve) => {
    timers.setTimeout(resolve, ms);
  });
}
