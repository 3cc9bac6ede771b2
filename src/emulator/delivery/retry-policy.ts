// The delivery retry policy as a pure function of the attempt number, so a test can walk it on a manual clock.
// The schedule itself (waits, attempts, timeout, retention) is defined in src/definitions.ts.
import {RETRY_WAITS_MS} from '../../definitions.js';

export {
  DELIVERY_TIMEOUT_MS,
  MAX_DELIVERY_ATTEMPTS,
  RESPONSE_BODY_LIMIT_BYTES,
  RETENTION_MS,
  RETRY_WAITS_MS,
} from '../../definitions.js';

/**
 * What happens after attempt `attempt` (1-based) failed: the wait before the next one,
 * or null when that was the last attempt and the delivery is marked failed.
 */
export function retryDelayAfter(attempt: number): number | null {
  if (!Number.isInteger(attempt) || attempt < 1) throw new RangeError('attempt numbers start at 1');
  return RETRY_WAITS_MS[attempt - 1] ?? null;
}

/** An attempt succeeds only on a 2xx answer (the rule lives in src/definitions.ts). */
export {isSuccessStatus} from '../../definitions.js';
