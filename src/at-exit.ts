// Work a process must do however it ends, when it did not get to do it itself (a folder to remove, a process group
// to stop): at exit (process.exit, the event loop running dry) and on SIGINT or SIGTERM. On a signal the work runs
// first of all listeners and then steps aside: when no other listener is left, the signal is raised again so the
// process ends as it would have; when the program listens itself (to stop in its own way), it goes on, and the exit
// hook still stands behind it. Stands on Node alone: the emulator, the testing entry and the scenario runner use it.

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;
type Signal = (typeof SIGNALS)[number];

const work = new Set<() => void>();
let onExit: (() => void) | undefined;
const onSignals = new Map<Signal, () => void>();

function runAll(): void {
  for (const w of [...work]) {
    try {
      w();
    } catch {
      // Best effort at the end: there is no one left to tell.
    }
  }
  work.clear();
}

function unhookSignals(): void {
  for (const [signal, listener] of onSignals) process.removeListener(signal, listener);
  onSignals.clear();
}

function hook(): void {
  if (!onExit) {
    onExit = runAll;
    process.on('exit', onExit);
  }
  for (const signal of SIGNALS) {
    if (onSignals.has(signal)) continue;
    const listener = () => {
      runAll();
      unhookSignals();
      // Nobody else listens: end as the signal would have ended the process without us.
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    };
    onSignals.set(signal, listener);
    process.prependListener(signal, listener);
  }
}

function unhook(): void {
  unhookSignals();
  if (onExit) process.removeListener('exit', onExit);
  onExit = undefined;
}

/**
 * Runs `fn` (synchronous) if the process exits or is signalled before the returned function is called; that
 * function forgets it (the work was done another way).
 */
export function atExit(fn: () => void): () => void {
  const once = () => fn();
  work.add(once);
  hook();
  return () => {
    work.delete(once);
    if (work.size === 0) unhook();
  };
}
