// What sends a resend's attempt: the delivery worker, as the context hands it to the operations.
import type {ClaimedDelivery} from './claim.js';
import type {AttemptResult} from './sender.js';

/** What sends the attempt: the delivery worker. */
export interface Attempter {
  readonly timeoutMs: number;
  holdEndpoint<T>(endpointId: string, fn: () => Promise<T>): Promise<T>;
  attemptNow(
    item: ClaimedDelivery,
  ): Promise<{startedAt: Date; signatureT: number | null; result: AttemptResult}>;
}
