// The real time the delivery engine waits on (leases, sleeps, retries of a failed write), injected as one object
// so a test can fake every wait. The interface and the process's own timers live beside the emulator clock
// (../clock.ts), which is another thing: the time the service's rules run on, which a manual clock stops; leases
// and sleeps run on real time whatever that clock says.
import type {Timers} from '../clock.js';

export {realTimers, type Timers} from '../clock.js';

/** Resolves after `ms` of the given timers, or as soon as `signal` aborts. */
export function wait(timers: Timers, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const cancel = timers.setTimeout(() => {
      signal?.removeEventListener('abort', stop);
      resolve();
    }, ms);
    const stop = () => {
      cancel();
      resolve();
    };
    signal?.addEventListener('abort', stop, {once: true});
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
