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

/**
 * Runs `fn` every `ms` of the given timers (the next run is set before each call) until the function returned is
 * called. A `background` repetition does not keep the process alive on its own.
 */
export function every(
  timers: Timers,
  ms: number,
  fn: () => void,
  options?: {background?: boolean},
): () => void {
  let stopped = false;
  let cancel: () => void;
  const tick = () => {
    if (stopped) return;
    cancel = timers.setTimeout(tick, ms, options);
    fn();
  };
  cancel = timers.setTimeout(tick, ms, options);
  return () => {
    stopped = true;
    cancel();
  };
}
