// One lane of the worker: an endpoint's claimed deliveries sent one after another, in order, each through its
// steps: keep the lease, let chaos decide, sign, send, record. Outcomes go to the writer in chunks while the lane
// keeps sending, so the database records one chunk while the next is sent. What the lane could not send is handed
// back at its end.
//
// On a manual clock each attempt is made at its scheduled instant, so a clock moved past several attempts of a
// delivery makes them all: a retry that falls due before the clock's time is due at once. The lane stops before
// a delivery due after such a retry (the endpoint's order is by due time), and says more is due, so the worker
// claims again and the retry goes out in its place. An endpoint deleted meanwhile (cancels.ts) gets no further
// request: the lane stops before its next one.
//
// On a scaled clock the worker claims a little ahead (`aheadMs`), and the lane waits on the real timers for each
// delivery's due instant before its attempt: the attempt is made then, not whenever the claim came back. The clock
// is held at that instant meanwhile, so a timer that fires late (the process busy) does not make the attempt late
// by its clock. While it waits it holds no sending slot (lane-slots.ts), so endpoints due a moment later are
// claimed ahead too.
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
import type {LaneSlots} from './lane-slots.js';
import {sendChaosDuplicate} from './chaos-duplicate.js';
import type {DeliveryCancels} from './cancels.js';
import {type ClaimedDelivery, claimEndpointAfter, extendLease, releaseLeases} from './claim.js';
import type {AttemptResult} from './sender.js';
import {endpointSigner, UNREADABLE_SECRET} from './signing.js';
import type {PreparedStatements} from './statements.js';
import {wait} from './timers.js';

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
  /** Endpoints deleted while their deliveries were held here: their lanes stop before the next request. */
  cancels: DeliveryCancels;
  /**
   * How far past its org's time now a delivery may be due and still be claimed, in clock milliseconds (only a
   * scaled clock's is not 0): the lane waits for such a delivery's instant.
   */
  aheadMs(): number;
  /** The slots of the lanes sending: a lane waiting for a due instant gives its slot up meanwhile. */
  slots: LaneSlots;
  /** A waiting lane gave its slot back: the worker may claim for other endpoints. */
  slotFreed(): void;
  /** Aborts when the worker stops: a lane waiting for a due instant stops waiting. */
  signal: AbortSignal;
  /**
   * Aborts when a clock moves next (an org's own, on a scaled clock): a lane waiting for a due instant hands the
   * delivery back, and the next claim reads it with its org's time as it is now.
   */
  clockMoved(): AbortSignal;
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

/**
 * Sends `items` (one endpoint's, in order), and what follows them on an owned database; never throws. Resolves
 * true when something of the endpoint it scheduled is already due (a retry on a clock moved past it).
 */
export function runLane(lane: LaneContext, endpointId: string, items: ClaimedDelivery[]): Promise<boolean> {
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
  /** What this lane scheduled that is due already (a retry, a postponed first attempt), by delivery. */
  readonly #dueAgain = new Map<string, {at: number; seq: number}>();

  constructor(
    private readonly c: LaneContext,
    private readonly endpointId: string,
    items: ClaimedDelivery[],
  ) {
    this.#batch = items;
    this.#leaseUntil = c.timers.now() + c.leaseMs;
  }

  async run(): Promise<boolean> {
    try {
      for (let item = await this.#nextItem(); item; item = await this.#nextItem()) {
        // A retry this lane scheduled comes first: the rest goes back, and the next claim takes them in order.
        if (this.#overtaken(item) || !(await this.#attempt(item))) {
          this.#unsent = this.#rest();
          this.#next = undefined;
          break;
        }
      }
    } catch (err) {
      this.c.log(`delivery lane ${this.endpointId}: ${message(err)}`);
      // The item that failed was not recorded: it and the rest of the batch are handed back.
      this.#unsent = this.#rest();
    }
    // Done sending: its slot goes to a lane waiting for one while the records are written.
    this.c.slots.give();
    await this.#finish();
    return this.#dueAgain.size > 0;
  }

  /** True when a delivery this lane scheduled is due before `item` in the endpoint's order. */
  #overtaken(item: ClaimedDelivery): boolean {
    this.#dueAgain.delete(item.id);
    if (this.#dueAgain.size === 0 || !item.dueAt) return false;
    const at = item.dueAt.getTime();
    const seq = item.seq ?? 0;
    for (const due of this.#dueAgain.values())
      if (due.at < at || (due.at === at && due.seq < seq)) return true;
    return false;
  }

  /** The item's delivery is scheduled again at `at`: noted when that is due already (or would be claimed now). */
  #scheduled(item: ClaimedDelivery, at: number): void {
    if (at <= this.c.maker.orgNowMs(item) + this.c.aheadMs())
      this.#dueAgain.set(item.id, {at, seq: item.seq ?? 0});
  }

  /**
   * Waits on the real timers until the item is due by its org's time, when it was claimed ahead (a scaled clock).
   * False when the wait ended first: the worker stopped, the endpoint was cancelled or a clock moved (the item then
   * goes back with the rest, to be claimed again). `release` lets go of the clock's hold at the instant: called when
   * the lane must wait in line for a sending slot, a queue the clock runs on through.
   */
  async #untilDue(item: ClaimedDelivery, release: () => void): Promise<boolean> {
    const dueAt = item.dueAt?.getTime();
    if (this.c.clock.mode !== 'scaled' || dueAt === undefined) return true;
    const left = () => dueAt - this.c.maker.orgNowMs(item);
    if (left() <= 0) return true;
    const cancelled = this.c.cancels.waiting(this.endpointId);
    const ended = AbortSignal.any([this.c.signal, cancelled.signal, this.c.clockMoved()]);
    if (this.c.slots.give()) this.c.slotFreed();
    try {
      while (left() > 0 && !ended.aborted)
        await wait(this.c.timers, Math.ceil(left() / this.c.clock.scale), ended);
    } finally {
      cancelled.done();
    }
    // A lane ends holding a slot, whichever way its wait ended.
    if (!this.c.slots.takeFree()) {
      release();
      await this.c.slots.acquire();
    }
    return left() <= 0 && !this.c.stopping() && !this.#cancelled(item);
  }

  /** A scaled clock shows no time past the item's due instant until its attempt is stamped (or the wait ends). */
  #holdClock(item: ClaimedDelivery): () => void {
    const dueAt = item.dueAt?.getTime();
    if (dueAt === undefined || !this.c.clock.hold) return () => undefined;
    // The clock held is the emulator's; the item is due by its org's, which runs offsetMs ahead of it.
    return this.c.clock.hold(dueAt - (item.offsetMs ?? 0));
  }

  /** Its endpoint was deleted after the item was read: no request may start for it. */
  #cancelled(item: ClaimedDelivery): boolean {
    return this.c.cancels.cancelled(this.endpointId, item.fence ?? 0);
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
    // The key and the transport are made ready before any wait for the due instant, not in its first moments.
    this.#signer ??= endpointSigner(this.c.vault, item.secretCiphertext);
    await this.#target(item);
    // The org time the attempt is made at: its scheduled instant on a manual clock, and on a scaled one, which is
    // held there while the lane waits for it (clock.ts).
    let at: number;
    const release = this.#holdClock(item);
    try {
      if (!(await this.#untilDue(item, release))) return false;
      await this.#keepLease();
      if (this.#cancelled(item)) return false;
      at = this.c.maker.scheduledAtMs(item);
    } finally {
      release();
    }
    // Chaos decides a first attempt's fate once: postponed (it comes back later, marked chaos), or sent now and
    // perhaps once more.
    const chaos = item.scheduledAttempt === 1 ? this.c.chaos?.decide(this.endpointId, item.id) : undefined;
    if (chaos && chaos.postponeMs > 0) {
      await postponeFirstAttempt(this.c.db, item.id, new Date(at + chaos.postponeMs));
      this.#scheduled(item, at + chaos.postponeMs);
      return true;
    }
    // Signed with one key per lane, the secret decrypted and prepared for HMAC once, not per attempt.
    if (!this.#signer) {
      // An unreadable secret (the vault key changed) is a failed attempt, so the schedule still ends.
      this.#records.push(this.#record(item, at, UNREADABLE_SECRET, null));
      return true;
    }
    const t = this.c.maker.signatureT(item, at);
    // Deleted means gone: checked last, with no wait between the check and the request's start.
    if (this.#cancelled(item)) return false;
    const request = this.c.cancels.sending(this.endpointId);
    const result = await this.c.maker
      .send(item, this.#signer, t, this.#to, request.signal)
      .finally(request.done);
    if (result.aborted) return false;
    this.#records.push(this.#record(item, at, result, t, chaos?.resumed ? 'chaos' : 'scheduled'));
    if (chaos?.duplicate) {
      // Recorded after the attempt it repeats, made at the same instant.
      this.#flush();
      await Promise.all(this.#writes);
      if (this.#cancelled(item)) return false;
      if (await sendChaosDuplicate(this.c.maker, this.c.db, item, this.#signer, this.#to, at))
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

  /** The record of an attempt made at the org time `at`; a retry it schedules that is due already is noted. */
  #record(
    item: ClaimedDelivery,
    at: number,
    result: AttemptResult,
    signatureT: number | null,
    trigger: AttemptTrigger = 'scheduled',
  ): AttemptRecord {
    const finishedAt = new Date(this.c.maker.finishedAtMs(item, at));
    const record = attemptRecord(item, {startedAt: new Date(at), finishedAt, result, signatureT, trigger});
    if (record.nextAttemptAt) this.#scheduled(item, record.nextAttemptAt.getTime());
    return record;
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
    const fence = this.c.cancels.mark();
    const ahead = claimEndpointAfter(this.c.db, this.c.statements, {
      endpointId: this.endpointId,
      now: new Date(this.c.clock.nowMs() + this.c.aheadMs()),
      after: {dueAt: last.dueAt, seq: last.seq},
      limit: this.c.perEndpoint,
    }).then((items) => items.map((item) => ({...item, fence})));
    // Handled now; awaited (and reported) when the lane reaches it.
    ahead.catch(() => undefined);
    return ahead;
  }
}

export function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
