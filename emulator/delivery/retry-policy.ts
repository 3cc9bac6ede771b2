// The delivery retry policy of spec §6: a pure function of the attempt number, so a test can walk it on a manual clock.

/** Waits after failed attempts 1..8; the ninth failure is final. */
export const RETRY_WAITS_MS: readonly number[] = Object.freeze([
  30_000, // 30 s
  120_000, // 2 min
  600_000, // 10 min
  1_800_000, // 30 min
  3_600_000, // 1 h
  10_800_000, // 3 h
  21_600_000, // 6 h
  43_200_000, // 12 h
]);

export const MAX_ATTEMPTS = RETRY_WAITS_MS.length + 1;

/** An attempt succeeds only when a 2xx status arrives within this many (real) milliseconds. */
export const DELIVERY_TIMEOUT_MS = 10_000;

/** Bytes of a receiver's answer kept per attempt; reading stops past this, so a huge answer costs nothing. */
export const RESPONSE_BODY_LIMIT_BYTES = 4096;

/** Events and deliveries older than this (by the emulator clock) are purged. */
export const RETENTION_MS = 30 * 86_400_000;

/**
 * What happens after attempt `attempt` (1-based) failed: the wait before the next one,
 * or null when that was the last attempt and the delivery is marked failed.
 */
export function retryDelayAfter(attempt: number): number | null {
  if (!Number.isInteger(attempt) || attempt < 1) throw new RangeError('attempt numbers start at 1');
  return RETRY_WAITS_MS[attempt - 1] ?? null;
}

export function isSuccessStatus(status: number): boolean {
  return status >= 200 && status <= 299;
}
