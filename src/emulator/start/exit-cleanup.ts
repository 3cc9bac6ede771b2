// What an emulator leaves on disk (the data dir made for it, with emulator.json and its admin token) goes when its
// process ends without stopping it: at exit (process.exit, the event loop running dry) and on SIGINT or SIGTERM.
// On a signal the cleanup runs first of all listeners and then steps aside: when no other listener is left, the
// signal is raised again so the process ends as it would have; when the program listens itself (to stop the
// emulator in its own way), the program goes on, and the exit cleanup still stands behind it.
import {rmSync} from 'node:fs';

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;
type Signal = (typeof SIGNALS)[number];

const cleanups = new Set<() => void>();
let onExit: (() => void) | undefined;
const onSignals = new Map<Signal, () => void>();

function runAll(): void {
  for (const clean of [...cleanups]) {
    try {
      clean();
    } catch {
      // Best effort at the end: there is no one left to tell.
    }
  }
  cleanups.clear();
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
 * Removes `dir` (synchronously, whole) if the process exits or is signalled before the returned function is
 * called; that function forgets it (the emulator stopped and removed it itself).
 */
export function removeAtExit(dir: string): () => void {
  const clean = () => rmSync(dir, {recursive: true, force: true});
  cleanups.add(clean);
  hook();
  return () => {
    cleanups.delete(clean);
    if (cleanups.size === 0) unhook();
  };
}
