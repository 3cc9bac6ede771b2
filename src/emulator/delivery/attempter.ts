// What sends a resend's attempt: the delivery worker, as the context hands it to the operations.
import type {ClaimedDelivery} from './claim.js';
import type {AttemptResult} from './sender.js';
import type {Timers} from './timers.js';

/** What sends the attempt: the delivery worker. */
export interface Attempter {
  readonly timeoutMs: number;
  /** The real time leases and waits run on. */
  readonly timers: Timers;
  holdEndpoint<T>(endpointId: string, fn: () => Promise<T>): Promise<T>;
  attemptNow(
    item: ClaimedDelivery,
  ): Promise<{startedAt: Date; signatureT: number | null; result: AttemptResult}>;
}
