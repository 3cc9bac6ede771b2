// The real time the delivery worker waits on (leases, sleeps, retries of a failed write), injected as one object
// so a test can fake every wait. The emulator clock (clock.ts) is another thing: the time the service's rules
// run on, which a manual clock stops; leases and sleeps run on real time whatever that clock says.
export interface Timers {
  /** Real milliseconds since the epoch, as Date.now. */
  now(): number;
  /** Runs `fn` once after `ms`; the function returned cancels it. */
  setTimeout(fn: () => void, ms: number): () => void;
}

export const realTimers: Timers = {
  now: () => Date.now(),
  setTimeout(fn, ms) {
    const timer = setTimeout(fn, ms);
    return () => clearTimeout(timer);
  },
};

/** Resolves after `ms` of the given timers. */
export function wait(timers: Timers, ms: number): Promise<void> {
  return new Promise((resolve) => {
    timers.setTimeout(resolve, ms);
  });
}
