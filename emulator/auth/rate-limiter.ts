// Counts failed authentications per client address in fixed windows of the emulator clock.
// Only failures count, so a busy client with a good key is never slowed down.
import type {Clock} from '../clock.js';

export interface RateLimitOptions {
  /** Failures allowed per address within one window before it is refused. Default 20. */
  maxFailures?: number;
  /** Window length in milliseconds. Default 60 000. */
  windowMs?: number;
}

export const DEFAULT_RATE_LIMIT = {maxFailures: 20, windowMs: 60_000} as const;

// Bounds memory when many addresses fail; older windows are dropped first.
const MAX_TRACKED_ADDRESSES = 10_000;

interface Window {
  start: number;
  failures: number;
}

export class AuthFailureLimiter {
  private readonly windows = new Map<string, Window>();
  private readonly maxFailures: number;
  private readonly windowMs: number;

  constructor(
    private readonly clock: Clock,
    options: RateLimitOptions = {},
  ) {
    this.maxFailures = options.maxFailures ?? DEFAULT_RATE_LIMIT.maxFailures;
    this.windowMs = options.windowMs ?? DEFAULT_RATE_LIMIT.windowMs;
  }

  /** Seconds the address must wait, or 0 when it may try. */
  retryAfterSeconds(address: string): number {
    const w = this.current(address);
    if (!w || w.failures < this.maxFailures) return 0;
    return Math.max(1, Math.ceil((w.start + this.windowMs - this.clock.nowMs()) / 1000));
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
