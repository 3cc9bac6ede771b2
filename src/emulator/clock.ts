// The one source of time for every rule in the emulator (expiry, retries, retention, rate limits).
// A manual clock moves only when told, so tests and scripts can walk a day of retries in milliseconds.
import {type ClockMode, EARLIEST_CLOCK_MS, LATEST_CLOCK_MS} from '../definitions.js';

export type {ClockMode};

export interface Clock {
  readonly mode: ClockMode;
  /** How many times as fast as real time it runs: 1 for a real clock, N for a scaled one, 0 for a manual one. */
  readonly scale: number;
  now(): Date;
  nowMs(): number;
  /** Called after a manual clock moves; returns an unsubscribe function. Never called for a real clock. */
  onChange(listener: (now: Date) => void): () => void;
  /**
   * A scaled clock's only: it shows no time past `atMs` until the function returned is called (an attempt due at
   * `atMs` is made at its instant, however late its real timer fires), nor for longer than HOLD_LIMIT_MS of real
   * time past that instant. Then it shows its time again: it does not fall behind.
   */
  hold?(atMs: number): () => void;
}

/** The most real milliseconds a scaled clock is held past an instant (a pause of the process, not a lane's queue). */
export const HOLD_LIMIT_MS = 250;

export interface ManualClock extends Clock {
  advance(ms: number): Date;
  set(to: Date): Date;
  /**
   * Resolves once the moves made so far are stored where every process sharing the clock reads them (at once
   * for a clock of one process), with now() then showing the stored time; rejects with ClockRangeError when the
   * store refused the last move (with the clocks of other processes' orgs it would have left the range).
   */
  synced(): Promise<void>;
  /** Takes moves made elsewhere into account (a clock shared by several processes reads the stored time). */
  refresh(): Promise<void>;
}

/**
 * Real time, which waits (leases, sleeps, retries, timeouts) run on whatever the emulator's clock says: injected
 * as one object so a test can fake every wait. Not the time the service's rules run on (that is a Clock).
 */
export interface Timers {
  /** Real milliseconds since the epoch, as Date.now. */
  now(): number;
  /**
   * Runs `fn` once after `ms`; the function returned cancels it. A `background` wait does not keep the process
   * alive on its own.
   */
  setTimeout(fn: () => void, ms: number, options?: {background?: boolean}): () => void;
}

export const realTimers: Timers = {
  now: () => Date.now(),
  setTimeout(fn, ms, options) {
    const timer = setTimeout(fn, ms);
    if (options?.background) timer.unref();
    return () => clearTimeout(timer);
  },
};

export function realClock(): Clock {
  return {
    mode: 'real',
    scale: 1,
    now: () => new Date(),
    nowMs: () => Date.now(),
    onChange: () => () => undefined,
  };
}

/** A manual clock asked to move outside the times it can show; nothing moved. */
export class ClockRangeError extends RangeError {
  constructor(message: string) {
    super(message);
    this.name = 'ClockRangeError';
  }
}

const EARLIEST = new Date(EARLIEST_CLOCK_MS).toISOString();
const LATEST = new Date(LATEST_CLOCK_MS).toISOString();

/** What a refused move says: the range of times a clock (the emulator's, an org's) can show. */
export function rangeRefusal(): string {
  return `would move the clock outside the times it can show, ${EARLIEST} to ${LATEST}; nothing moved`;
}

/** Throws ClockRangeError unless `ms` is a time the clock can show. */
export function checkClockTime(ms: number): number {
  if (!Number.isFinite(ms) || ms < EARLIEST_CLOCK_MS || ms > LATEST_CLOCK_MS) {
    throw new ClockRangeError(rangeRefusal());
  }
  return ms;
}

/**
 * Throws ClockRangeError unless the emulator's clock can show `ms` with every org's clock, which runs from
 * `spread.low` to `spread.high` milliseconds ahead of it, within range too.
 */
export function checkClockTimeWith(ms: number, spread: {low: number; high: number}): number {
  checkClockTime(ms);
  if (ms + spread.low < EARLIEST_CLOCK_MS || ms + spread.high > LATEST_CLOCK_MS) {
    throw new ClockRangeError(
      `would move an org's own clock outside the times it can show, ${EARLIEST} to ${LATEST}; nothing moved`,
    );
  }
  return ms;
}

/** Throws ClockRangeError unless the clock can move forward by `ms` from `from`; returns the time it moves to. */
export function checkAdvance(from: number, ms: number): number {
  if (!Number.isFinite(ms) || ms < 0)
    throw new ClockRangeError('the clock only moves forward by a finite duration');
  return checkClockTime(from + ms);
}

/** The listeners of a manual clock: onChange adds one, notify tells each the new time. */
export function clockListeners() {
  const listeners = new Set<(now: Date) => void>();
  return {
    onChange(listener: (now: Date) => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    notify(now: Date) {
      for (const listener of listeners) listener(now);
      return now;
    },
  };
}

/**
 * A manual clock over a time kept by its maker (`read`): its moves are the maker's, its listeners are told of
 * every move the maker applies. The one shape of a manual clock, for one process or shared by several.
 */
export function manualClockOver(
  read: () => number,
  listeners: ReturnType<typeof clockListeners>,
  moves: Pick<ManualClock, 'advance' | 'set' | 'synced' | 'refresh'>,
): ManualClock {
  return {
    mode: 'manual',
    scale: 0,
    now: () => new Date(read()),
    nowMs: read,
    onChange: listeners.onChange,
    ...moves,
  };
}

export function manualClock(start: Date = new Date()): ManualClock {
  let current = start.getTime();
  if (!Number.isFinite(current) || current < EARLIEST_CLOCK_MS || current > LATEST_CLOCK_MS) {
    throw new ClockRangeError(`a manual clock starts between ${EARLIEST} and ${LATEST}`);
  }
  const listeners = clockListeners();
  return manualClockOver(() => current, listeners, {
    advance(ms) {
      current = checkAdvance(current, ms);
      return listeners.notify(new Date(current));
    },
    set(to) {
      current = checkClockTime(to.getTime());
      return listeners.notify(new Date(current));
    },
    synced: () => Promise.resolve(),
    refresh: () => Promise.resolve(),
  });
}

/**
 * A clock that runs `scale` times as fast as real time from `start` (`--clock scaled:60`: a day of the retry
 * schedule in 24 minutes), read from real time on every call, so waits on real timers line up with it. It is never
 * moved, and stops at the latest time a clock can show. `realNow` is the real time it runs on (a test passes the
 * time of its fake timers): by default the process's monotonic clock, which has sub-millisecond steps and does not
 * jump when the system's time is set. Date.now's whole milliseconds would be 60 ms steps at scaled:60, a fifth of
 * the 1% a 30 s retry may be off by.
 *
 * A real timer fires late when the process is busy (a garbage collection, code compiled on first use, a query of
 * the embedded database): 10 ms late is 600 ms of clock time at scaled:60, 2% of a 30 s retry. So a lane waiting
 * for an attempt's instant holds the clock there (`hold`): until the attempt is made, the clock shows that
 * instant at most, and everything recorded meanwhile is at or before it, in the order it happened. Then the clock
 * shows its time again, so the pause costs no time in the long run.
 */
export function scaledClock(
  scale: number,
  start: Date = new Date(),
  realNow: () => number = () => performance.now(),
): Clock {
  const startMs = checkClockTime(start.getTime());
  const realStart = realNow();
  // The instants held, each with the real time past which it no longer holds.
  const holds = new Map<number, {atMs: number; untilReal: number}>();
  let nextHold = 0;
  const nowMs = () => {
    const real = realNow();
    let ms = startMs + Math.floor((real - realStart) * scale);
    for (const h of holds.values()) if (h.atMs < ms && real < h.untilReal) ms = h.atMs;
    return Math.min(LATEST_CLOCK_MS, ms);
  };
  return {
    mode: 'scaled',
    scale,
    now: () => new Date(nowMs()),
    nowMs,
    onChange: () => () => undefined,
    hold(atMs) {
      // Never back: an instant already passed holds nothing.
      if (!(atMs > nowMs())) return () => undefined;
      const id = nextHold++;
      holds.set(id, {atMs, untilReal: realStart + (atMs - startMs) / scale + HOLD_LIMIT_MS});
      return () => holds.delete(id);
    },
  };
}

export {parseDuration} from '../schemas/duration.js';
