// What sends a resend's attempt: the delivery worker, as the context hands it to the operations.
import type {ClaimedDelivery} from './claim.js';
import type {AttemptResult} from './sender.js';
import type {Timers} from './timers.js';

/** What sends the attempt: the delivery worker. */
export interface Attempter {
  readonly timeoutMs: number;
  /** The real time leases and waits run on. */
  readonly timers: Timers;
  /** Whom its leases name: a resend's lease is `<owner>:resend_…`, so a deletion knows whose it is. */
  readonly owner: string;
  /** The deletions' mark, taken before a delivery is read to be attempted (kept as its `fence`). */
  mark(): number;
  holdEndpoint<T>(endpointId: string, fn: () => Promise<T>): Promise<T>;
  attemptNow(
    item: ClaimedDelivery,
  ): Promise<{startedAt: Date; signatureT: number | null; result: AttemptResult}>;
}
