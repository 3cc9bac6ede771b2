// One lane of the worker: an endpoint's claimed deliveries sent one after another, in order, each through its
// steps: keep the lease, let chaos decide, sign, send, record. Outcomes go to the writer in chunks while the lane
// keeps sending, so the database records one chunk while the next is sent. What the lane could not send is handed
// back at its end.
import type {WebhookSigner} from '@svc/webhooks';
import type {AttemptTrigger} from '../../definitions.js';
import type {Clock, Timers} from '../clock.js';
import type {Database} from '../db/database.js';
import type {Vault} from '../vault.js';
import type {AttemptMaker, AttemptTarget} from './attempt-maker.js';
import {type AttemptWriter, attemptRecord} from './attempt-record.js';
import {type AttemptRecord, postponeFirstAttempt} from './attempt-repository.js';
import {parseTarget} from './attempt-send.js';
import type {ChaosPlan} from './chaos.js';
import {sendChaosDuplicate} from './chaos-duplicate.js';
import {type ClaimedDelivery, claimEndpointAfter, extendLease, releaseLeases} from './claim.js';
import type {AttemptResult} from './sender.js';
import {endpointSigner, UNREADABLE_SECRET} from './signing.js';
import type {PreparedStatements} from './statements.js';

/** What every lane of a worker shares. */
export interface LaneContext {
  db: Database;
  statements: PreparedStatements;
  writer: AttemptWriter;
  maker: AttemptMaker;
  clock: Clock;
  timers: Timers;
  vault: Vault;
  chaos?: ChaosPlan;
  owner: string;
  leaseMs: number;
  timeoutMs: number;
  perEndpoint: number;
  recordChunk: number;
  exclusiveDatabase: boolean;
  stopping(): boolean;
  onHandBack?: () => void;
  /** Told after attempts were recorded outside the writer (a chaos duplicate). */
  onRecorded?: () => void;
  log(line: string): void;
}

/** Sends `items` (one endpoint's, in order), and what follows them on an owned database; never throws. */
export function runLane(lane: LaneContext, endpointId: string, items: ClaimedDelivery[]): Promise<void> {
  return new Lane(lane, endpointId, items).run();
}

class Lane {
  readonly #records: AttemptRecord[] = [];
  readonly #writes: Promise<void>[] = [];
  #unsent: string[] = [];
  #leaseUntil: number;
  #signer: WebhookSigner | undefined;
  #to: AttemptTarget = {target: undefined, dispatcher: undefined};
  // On a database this process owns, a lane whose batch was full reads the endpoint's next batch half-way
  // through sending this one, and carries on with it: no pause for the loop's next claim between batches.
  #batch: ClaimedDelivery[];
  #next: Promise<ClaimedDelivery[]> | undefined;
  #i = -1;

  constructor(
    private readonly c: LaneContext,
    private readonly endpointId: string,
    items: ClaimedDelivery[],
  ) {
    this.#batch = items;
    this.#leaseUntil = c.timers.now() + c.leaseMs;
  }

  async run(): Promise<void> {
    try {
      for (let item = await this.#nextItem(); item; item = await this.#nextItem()) {
        if (!(await this.#attempt(item))) {
          this.#unsent = this.#rest();
          break;
        }
      }
    } catch (err) {
      this.c.log(`delivery lane ${this.endpointId}: ${message(err)}`);
      // The item that failed was not recorded: it and the rest of the batch are handed back.
      this.#unsent = this.#rest();
    }
    await this.#finish();
  }

  /** The next delivery to attempt: the batch's next, or the first of the batch read ahead. */
  async #nextItem(): Promise<ClaimedDelivery | undefined> {
    this.#i += 1;
    if (this.#i >= this.#batch.length) {
      if (!this.#next) return undefined;
      const more = await this.#next;
      this.#next = undefined;
      if (more.length === 0) return undefined;
      this.#batch = more;
      this.#i = 0;
    }
    if (!this.#next && this.#i === this.#batch.length >> 1) this.#next = this.#readAhead();
    return this.#batch[this.#i];
  }

  #rest(): string[] {
    return this.#batch.slice(this.#i).map((d) => d.id);
  }

  /** One delivery through its steps; false when the lane must stop here (stopping, relay gone, cut short). */
  async #attempt(item: ClaimedDelivery): Promise<boolean> {
    if (this.c.stopping() || (item.relay && !this.c.maker.relay?.isConnected(this.endpointId))) return false;
    await this.#keepLease();
    // Chaos decides a first attempt's fate once: postponed (it comes back later, marked chaos), or sent now and
    // perhaps once more.
    const chaos = item.scheduledAttempt === 1 ? this.c.chaos?.decide(this.endpointId, item.id) : undefined;
    if (chaos && chaos.postponeMs > 0) {
      await postponeFirstAttempt(
        this.c.db,
        item.id,
        new Date(this.c.maker.orgNowMs(item) + chaos.postponeMs),
      );
      return true;
    }
    const startedAt = new Date(this.c.maker.orgNowMs(item));
    // Sign: one key per lane, the secret decrypted and prepared for HMAC once, not per attempt.
    this.#signer ??= endpointSigner(this.c.vault, item.secretCiphertext);
    if (!this.#signer) {
      // An unreadable secret (the vault key changed) is a failed attempt, so the schedule still ends.
      this.#records.push(this.#record(item, startedAt, UNREADABLE_SECRET, null));
      return true;
    }
    const t = this.c.maker.signatureT(item);
    await this.#target(item);
    const result = await this.c.maker.send(item, this.#signer, t, this.#to);
    if (result.aborted) return false;
    this.#records.push(this.#record(item, startedAt, result, t, chaos?.resumed ? 'chaos' : 'scheduled'));
    if (chaos?.duplicate) {
      // Recorded after the attempt it repeats.
      this.#flush();
      await Promise.all(this.#writes);
      if (await sendChaosDuplicate(this.c.maker, this.c.db, item, this.#signer, this.#to))
        this.c.onRecorded?.();
    }
    if (this.#records.length >= this.c.recordChunk) this.#flush();
    return true;
  }

  /** A lane may outlive its lease when receivers are slow; renewed before an attempt could cross it. */
  async #keepLease(): Promise<void> {
    const now = this.c.timers.now();
    if (this.c.exclusiveDatabase || now + this.c.timeoutMs + 5_000 <= this.#leaseUntil) return;
    this.#leaseUntil = now + this.c.leaseMs;
    await extendLease(this.c.db, this.#rest(), new Date(this.#leaseUntil), this.c.owner);
  }

  /**
   * Where the attempt goes: the URL parsed and the transport fetched once per lane. The connection is kept only
   * while another attempt follows in this lane: a receiver is not left an idle socket that delays its close.
   */
  async #target(item: ClaimedDelivery): Promise<void> {
    if (!item.relay) {
      this.#to.target ??= parseTarget(item.url);
      this.#to.dispatcher ??= await this.c.maker.agent();
    }
    this.#to.keepAlive = this.#next !== undefined || this.#i < this.#batch.length - 1;
  }

  #record(
    item: ClaimedDelivery,
    startedAt: Date,
    result: AttemptResult,
    signatureT: number | null,
    trigger: AttemptTrigger = 'scheduled',
  ): AttemptRecord {
    const finishedAt = new Date(this.c.maker.orgNowMs(item));
    return attemptRecord(item, {startedAt, finishedAt, result, signatureT, trigger});
  }

  #flush(): void {
    if (this.#records.length === 0) return;
    const written = this.c.writer.write(this.#records.splice(0));
    // Handled now, reported at the end: a rejection must not go unobserved while the lane is still sending.
    written.catch(() => undefined);
    this.#writes.push(written);
  }

  /** Waits for the records, and hands back what was not sent. */
  async #finish(): Promise<void> {
    this.#flush();
    const outcomes = await Promise.allSettled(this.#writes);
    const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
    // Unrecorded attempts are made again (after the lease runs out, or on the next claim here): at least once.
    if (failed)
      this.c.log(`could not record attempts of endpoint ${this.endpointId}: ${message(failed.reason)}`);
    const unsent = this.#unsent;
    try {
      if (!this.c.exclusiveDatabase && unsent.length > 0) {
        await releaseLeases(this.c.db, unsent, this.c.owner);
        this.c.onHandBack?.();
      }
    } catch (err) {
      this.c.log(`could not hand back ${unsent.length} delivery(ies): ${message(err)}`);
    }
  }

  /** The endpoint's batch after this one, read while this one is sent; only for a full batch on an owned database. */
  #readAhead(): Promise<ClaimedDelivery[]> | undefined {
    const last = this.#batch[this.#batch.length - 1];
    if (
      !this.c.exclusiveDatabase ||
      this.c.stopping() ||
      this.#batch.length < this.c.perEndpoint ||
      !last?.dueAt ||
      last.seq === undefined
    )
      return undefined;
    const ahead = claimEndpointAfter(this.c.db, this.c.statements, {
      endpointId: this.endpointId,
      now: this.c.clock.now(),
      after: {dueAt: last.dueAt, seq: last.seq},
      limit: this.c.perEndpoint,
    });
    // Handled now; awaited (and reported) when the lane reaches it.
    ahead.catch(() => undefined);
    return ahead;
  }
}

export function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
