// Counts failed authentications per client address in fixed windows of the emulator clock.
// Only failures count, so a busy client with a good key is never refused. A check that has to wait for a
// lookup (the key table) holds a reservation while it waits: a reservation counts as a failure until the
// lookup succeeds, so parallel guesses cannot all pass the check before any of them is recorded.
// Turned off (`false`), for API fuzzers only, it counts nothing and refuses no one.
import {AUTH_FAILURE_LIMIT} from '../../definitions.js';
import type {Clock} from '../clock.js';
import {rateLimited} from './bearer.js';

export interface RateLimitOptions {
  /** Failures allowed per address within one window before it is refused. Default: AUTH_FAILURE_LIMIT. */
  maxFailures?: number;
  /** Window length in milliseconds. Default: AUTH_FAILURE_LIMIT. */
  windowMs?: number;
}

/** The limit's options, or `false`: no limit at all (API fuzzers, which send failing requests by the thousand). */
export type RateLimitSetting = RateLimitOptions | false;

export const DEFAULT_RATE_LIMIT = AUTH_FAILURE_LIMIT;

/** What a limiter that is off hands out: nothing to settle. */
const UNCOUNTED: Reservation = Object.freeze({succeeded: () => undefined, failed: () => undefined});

// Bounds memory when many addresses fail; older windows are dropped first.
const MAX_TRACKED_ADDRESSES = 10_000;
// Requests of one address waiting for a free reservation; beyond this they are refused rather than queued.
const MAX_WAITING_PER_ADDRESS = 1_000;

interface Window {
  start: number;
  failures: number;
}

interface AddressState {
  /** Lookups in flight, each counted as a failure until it settles. */
  reserved: number;
  /** Made only when someone has to wait. */
  waiting: Array<() => void> | undefined;
}

/** The outcome of one check: settle it with `succeeded()` or `failed()` exactly once. */
export interface Reservation {
  succeeded(): void;
  failed(): void;
}

/** Thrown when an address has used up its failures; `retryAfterSeconds` is when its window ends. */
export class RateLimitedError extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super(`too many failed authentication attempts from this address; try again in ${retryAfterSeconds} s`);
    this.name = 'RateLimitedError';
  }
}

export class AuthFailureLimiter {
  private readonly windows = new Map<string, Window>();
  private readonly inFlight = new Map<string, AddressState>();
  private readonly maxFailures: number;
  private readonly windowMs: number;
  /** False when the limit was turned off: every check passes and nothing is counted. */
  readonly enabled: boolean;

  constructor(
    private readonly clock: Clock,
    setting: RateLimitSetting = {},
  ) {
    const options = setting === false ? {} : setting;
    this.enabled = setting !== false;
    this.maxFailures = options.maxFailures ?? DEFAULT_RATE_LIMIT.maxFailures;
    this.windowMs = options.windowMs ?? DEFAULT_RATE_LIMIT.windowMs;
  }

  /** Seconds the address must wait, or 0 when it may try. */
  retryAfterSeconds(address: string): number {
    const w = this.current(address);
    if (!w || w.failures < this.maxFailures) return 0;
    return this.secondsLeft(w);
  }

  /**
   * Takes a reservation for one authentication of `address`, waiting while the reservations already out
   * could use up what is left of its budget. Throws RateLimitedError once the budget is spent.
   */
  async reserve(address: string): Promise<Reservation> {
    for (;;) {
      const reservation = this.tryReserve(address);
      if (reservation) return reservation;
      await new Promise<void>((resolve) => this.waitFor(address, resolve));
    }
  }

  /**
   * The same without waiting, for the hot path: a reservation, or undefined when every remaining failure is
   * spoken for by a lookup in flight (then wait with `reserve`). Throws RateLimitedError once the budget is spent.
   */
  tryReserve(address: string): Reservation | undefined {
    if (!this.enabled) return UNCOUNTED;
    const w = this.current(address);
    const failures = w?.failures ?? 0;
    if (failures >= this.maxFailures) throw new RateLimitedError(this.secondsLeft(w as Window));
    let state = this.inFlight.get(address);
    if (!state) {
      state = {reserved: 0, waiting: undefined};
      this.inFlight.set(address, state);
    }
    if (failures + state.reserved >= this.maxFailures) return undefined;
    state.reserved += 1;
    return new HeldReservation(this, address, state);
  }

  private waitFor(address: string, resolve: () => void): void {
    const state = this.inFlight.get(address);
    // Settled meanwhile: look again at once.
    if (!state || state.reserved === 0) {
      resolve();
      return;
    }
    state.waiting ??= [];
    if (state.waiting.length >= MAX_WAITING_PER_ADDRESS) {
      throw new RateLimitedError(Math.max(1, Math.ceil(this.windowMs / 1000)));
    }
    state.waiting.push(resolve);
  }

  /** Called once per reservation. */
  settle(address: string, state: AddressState, failed: boolean): void {
    if (failed) this.recordFailure(address);
    state.reserved -= 1;
    if (state.waiting) this.wake(state);
    if (state.reserved === 0 && !state.waiting?.length) this.inFlight.delete(address);
  }

  recordFailure(address: string): void {
    const now = this.clock.nowMs();
    let w = this.current(address);
    if (!w) {
      if (this.windows.size >= MAX_TRACKED_ADDRESSES) this.prune(now);
      w = {start: now, failures: 0};
      this.windows.set(address, w);
    }
    w.failures += 1;
  }

  /** Forgets every address's failures (a test suite starting afresh). Lookups in flight still settle. */
  reset(): void {
    this.windows.clear();
    for (const state of this.inFlight.values()) this.wake(state);
  }

  private wake(state: AddressState): void {
    const waiting = state.waiting;
    state.waiting = undefined;
    for (const resolve of waiting ?? []) resolve();
  }

  private secondsLeft(w: Window): number {
    return Math.max(1, Math.ceil((w.start + this.windowMs - this.clock.nowMs()) / 1000));
  }

  private current(address: string): Window | undefined {
    const w = this.windows.get(address);
    if (!w) return undefined;
    const now = this.clock.nowMs();
    // A clock set backwards also starts a new window, rather than blocking for the time travelled.
    if (now >= w.start + this.windowMs || now < w.start) {
      this.windows.delete(address);
      return undefined;
    }
    return w;
  }

  private prune(now: number): void {
    for (const [address, w] of this.windows) {
      if (now >= w.start + this.windowMs) this.windows.delete(address);
    }
    // Everyone still inside a window: forget the oldest half rather than grow without bound.
    if (this.windows.size >= MAX_TRACKED_ADDRESSES) {
      let drop = this.windows.size / 2;
      for (const address of this.windows.keys()) {
        if (drop-- <= 0) break;
        this.windows.delete(address);
      }
    }
  }
}

class HeldReservation implements Reservation {
  #settled = false;

  constructor(
    private readonly limiter: AuthFailureLimiter,
    private readonly address: string,
    private readonly state: AddressState,
  ) {}

  succeeded(): void {
    this.#settle(false);
  }

  failed(): void {
    this.#settle(true);
  }

  #settle(failed: boolean): void {
    if (this.#settled) return;
    this.#settled = true;
    this.limiter.settle(this.address, this.state, failed);
  }
}

/**
 * A reservation for one authentication of `address`, or the 429 answer once it used up its failures. Returns
 * without a promise when the budget has room (every request but those of a guessing burst).
 */
export function reserveOrRefuse(
  limiter: AuthFailureLimiter,
  address: string,
): Reservation | Promise<Reservation> {
  try {
    return limiter.tryReserve(address) ?? limiter.reserve(address).catch(refuse);
  } catch (err) {
    return refuse(err);
  }
}

function refuse(err: unknown): never {
  if (err instanceof RateLimitedError) throw rateLimited(err.retryAfterSeconds);
  throw err;
}
