// The record step of an attempt: what it did to its delivery (succeeded, failed for good, or pending with the
// next attempt scheduled by the retry policy), and the writer that records attempts in group commits.
import type {AttemptTrigger} from '../../definitions.js';
import type {Database} from '../db/database.js';
import {type AttemptRecord, recordAttempts} from './attempt-repository.js';
import type {ClaimedDelivery} from './claim.js';
import {retryDelayAfter} from './retry-policy.js';
import type {AttemptResult} from './sender.js';
import type {PreparedStatements} from './statements.js';
import {type Timers, wait} from './timers.js';

/** The record of one scheduled (or chaos-resumed) attempt of `item`, with its delivery's next state. */
export function attemptRecord(
  item: ClaimedDelivery,
  attempt: {
    startedAt: Date;
    finishedAt: Date;
    result: AttemptResult;
    signatureT: number | null;
    trigger?: AttemptTrigger;
  },
): AttemptRecord {
  const {result, finishedAt} = attempt;
  const delay = result.ok ? null : retryDelayAfter(item.scheduledAttempt);
  const status = result.ok ? 'succeeded' : delay === null ? 'failed' : 'pending';
  return {
    deliveryId: item.id,
    eventId: item.eventId,
    attempt: item.attempt,
    startedAt: attempt.startedAt,
    finishedAt,
    durationMs: result.durationMs,
    statusCode: result.statusCode,
    // PostgreSQL text cannot hold NUL; a receiver answering with one must not make the record unwritable.
    error: result.error?.replaceAll('\u0000', '') ?? null,
    responseBody: result.responseBody?.replaceAll('\u0000', '') ?? null,
    signatureT: attempt.signatureT,
    trigger: attempt.trigger ?? 'scheduled',
    status,
    nextAttemptAt: status === 'pending' && delay !== null ? new Date(finishedAt.getTime() + delay) : null,
  };
}

/**
 * Waits before writing a batch of attempts again after a failed write (a lost database connection is replaced on
 * the next query): the attempts were sent, and recording them late beats sending them again once the lease ends.
 */
export const RECORD_RETRY_WAITS_MS = [50, 200, 500, 1_000, 2_000];

/**
 * Group commit: lanes that finish while a write is running share the next one, so the database sees one
 * statement per round however many endpoints are served at once.
 */
export class AttemptWriter {
  #queue: {records: AttemptRecord[]; done: () => void; failed: (err: unknown) => void}[] = [];
  #running = false;
  /** Attempts written since the count was last taken. */
  written = 0;

  constructor(
    private readonly db: Database,
    private readonly statements: PreparedStatements,
    private readonly timers: Timers,
    /** Told after each batch is recorded, with its records (whoever waits for one of their deliveries looks again). */
    private readonly onRecorded: (records: readonly AttemptRecord[]) => void = () => undefined,
  ) {}

  write(records: AttemptRecord[]): Promise<void> {
    if (records.length === 0) return Promise.resolve();
    return new Promise((done, failed) => {
      this.#queue.push({records, done, failed});
      if (!this.#running) void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    this.#running = true;
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0);
      const records = batch.flatMap((b) => b.records);
      try {
        await this.#record(records);
        this.onRecorded(records);
        for (const b of batch) {
          this.written += b.records.length;
          b.done();
        }
      } catch (err) {
        for (const b of batch) b.failed(err);
      }
    }
    this.#running = false;
  }

  async #record(records: AttemptRecord[]): Promise<void> {
    for (let retry = 0; ; retry++) {
      try {
        await recordAttempts(this.db, this.statements, records);
        return;
      } catch (err) {
        const delay = RECORD_RETRY_WAITS_MS[retry];
        if (delay === undefined) throw err;
        await wait(this.timers, delay);
      }
    }
  }
}
