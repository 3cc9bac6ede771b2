// The delivery worker: claims due deliveries under a lease, runs one lane per endpoint (so each endpoint sees its
// deliveries in order), and takes each attempt through its steps: sign (signing.ts), send (attempt-send.ts),
// record (attempt-record.ts, in group commits, retries scheduled by the emulator clock). It wakes when told (new
// event, clock moved, listener attached) or when the next one is due. Every real-time wait goes through the
// injected timers (timers.ts), so a test can fake them all.
import {randomBytes} from 'node:crypto';
import {setMaxListeners} from 'node:events';
import type {Dispatcher} from 'undici';
import type {Clock} from '../clock.js';
import type {Database} from '../db/database.js';
import type {Vault} from '../vault.js';
import type {Resolver} from '../net/address-policy.js';
import type {AttemptTrigger} from '../../definitions.js';
import type {WebhookSigner} from '@svc/webhooks';
import {postponeFirstAttempt, recordResend} from './attempt-repository.js';
import type {ChaosPlan} from './chaos.js';
import type {RelayHub} from './relay-hub.js';
import {AttemptWriter, attemptRecord} from './attempt-record.js';
import {attemptHeaders, parseTarget, type SendRoute, sendSigned} from './attempt-send.js';
import type {AttemptRecord} from './attempt-repository.js';
import {
  type ClaimedDelivery,
  claimDue,
  claimEndpointAfter,
  extendLease,
  nextDueAt,
  releaseAllLeases,
  releaseLeases,
} from './claim.js';
import {DELIVERY_TIMEOUT_MS, RESPONSE_BODY_LIMIT_BYTES} from './retry-policy.js';
import type {AttemptResult} from './sender.js';
import {endpointSigner, UNREADABLE_SECRET} from './signing.js';
import {PreparedStatements} from './statements.js';
import {realTimers, type Timers} from './timers.js';

/** How long after start the delivery agent (undici) is loaded when no delivery has needed it yet. */
const AGENT_PRELOAD_DELAY_MS = 250;

export interface DeliveryWorkerOptions {
  db: Database;
  clock: Clock;
  /** Real time for leases, sleeps and write retries; tests pass fake ones. Default: the process's. */
  timers?: Timers;
  /**
   * Unix milliseconds a signature's `t` is taken from, given how far the delivery's org clock runs ahead of the
   * emulator's; the real time unless the emulator is told otherwise.
   */
  signatureNowMs?: (orgOffsetMs: number) => number;
  vault: Vault;
  relay?: RelayHub;
  /** Lets endpoints on loopback/private addresses and plain http:// be delivered to (local development). */
  allowLocalEndpoints?: boolean;
  /** Name resolution for delivery targets; injectable so tests can simulate DNS rebinding offline. */
  resolver?: Resolver;
  /** Replaces the delivery agent entirely (benchmarks); the caller owns and closes it. */
  dispatcher?: Dispatcher;
  /** Real-time limit of one attempt; the spec's 10 s unless a test shortens it. */
  timeoutMs?: number;
  maxResponseBytes?: number;
  /** Endpoints served at once; each has at most one attempt in flight. */
  maxLanes?: number;
  /** Deliveries one lane takes per claim, sent one after another. */
  perEndpoint?: number;
  /** Outcomes a lane hands to the writer at a time while it keeps sending. */
  recordChunk?: number;
  claimLimit?: number;
  leaseMs?: number;
  /** Longest sleep without a known due time: picks up other processes' writes and expired leases. */
  idleMs?: number;
  /**
   * This process alone uses the database (PGlite owns its data dir): claims read instead of locking and
   * leasing, and leases left by an earlier run are freed at start.
   */
  exclusiveDatabase?: boolean;
  /**
   * Attempts recorded between two VACUUM (ANALYZE) runs of the delivery tables, on a database this process owns.
   * PGlite has no autovacuum: without this, every retry and every purge leaves dead rows and index entries
   * behind for good, and the planner never learns how large the tables have grown.
   */
  vacuumEvery?: number;
  /**
   * Claimed deliveries were handed back unsent (shutdown, a lane that could not go on): on a shared database,
   * tells the other processes, which may take them at once.
   */
  onHandBack?: () => void;
  /** Delivery chaos (duplicates, held-back and delayed first attempts); none when absent. */
  chaos?: ChaosPlan;
  /** Told after attempts were recorded. */
  onRecorded?: () => void;
  /** Clock-driven chores (sandbox expiry, retention); returns when it next needs to run, if known. */
  sweep?: (now: Date) => Promise<Date | null>;
  log?: (line: string) => void;
}

interface IdleWaiter {
  afterPass: number;
  resolve(): void;
}

const SWEEP_INTERVAL_MS = 1_000;

export class DeliveryWorker {
  readonly #o: Required<
    Pick<
      DeliveryWorkerOptions,
      | 'timeoutMs'
      | 'maxResponseBytes'
      | 'maxLanes'
      | 'perEndpoint'
      | 'claimLimit'
      | 'leaseMs'
      | 'idleMs'
      | 'vacuumEvery'
      | 'recordChunk'
    >
  > &
    DeliveryWorkerOptions;
  readonly #owner = `w_${randomBytes(6).toString('hex')}`;
  readonly #lanes = new Map<string, Promise<void>>();
  readonly #shutdown = new AbortController();
  readonly #idleWaiters: IdleWaiter[] = [];
  readonly #unsubscribe: (() => void)[] = [];
  readonly #writer: AttemptWriter;
  readonly #statements: PreparedStatements;
  readonly #timers: Timers;
  /** Created on first need: undici loads only once something is to be delivered (or just after start). */
  #dispatcher: Promise<Dispatcher> | undefined;
  #ownsDispatcher = false;
  #loop: Promise<void> | undefined;
  #kicked = false;
  #wake: (() => void) | undefined;
  #stopping = false;
  #pass = 0;
  #sweepDue = true;
  #lastSweepReal = 0;
  #nextSweepAt: Date | null = null;
  #pausedLogged = false;
  /** Counts notify() calls, so a lane knows whether anything arrived for the loop while it ran. */
  #kicks = 0;
  /**
   * The last claim filled every free lane, so endpoints may be waiting for one: a lane that ends must wake the
   * loop even when its own endpoint has nothing more due.
   */
  #lanesFull = false;

  constructor(options: DeliveryWorkerOptions) {
    this.#o = {
      timeoutMs: DELIVERY_TIMEOUT_MS,
      maxResponseBytes: RESPONSE_BODY_LIMIT_BYTES,
      maxLanes: 16,
      perEndpoint: 128,
      recordChunk: 32,
      claimLimit: 1024,
      leaseMs: 60_000,
      idleMs: 5_000,
      vacuumEvery: 20_000,
      // An option passed as undefined means "the default", not "no limit".
      ...(Object.fromEntries(
        Object.entries(options).filter(([, v]) => v !== undefined),
      ) as DeliveryWorkerOptions),
    };
    // Every attempt in flight listens to the shutdown signal: one per lane, more than EventTarget's default of
    // ten, which would print a leak warning on the emulator's stderr.
    setMaxListeners(this.#o.maxLanes + 8, this.#shutdown.signal);
    this.#timers = options.timers ?? realTimers;
    this.#statements = new PreparedStatements(options.db);
    this.#writer = new AttemptWriter(options.db, this.#statements, this.#timers, options.onRecorded);
  }

  get timeoutMs(): number {
    return this.#o.timeoutMs;
  }

  start(): void {
    if (this.#loop) return;
    // Loaded in the background a moment after start-up, so the first delivery rarely waits for it, and an
    // emulator stopped at once (`svc emulator exec` around a quick command) neither loads it nor waits for it.
    if (!this.#o.dispatcher) {
      this.#unsubscribe.push(
        this.#timers.setTimeout(() => {
          if (!this.#stopping) this.#agent().catch(() => undefined);
        }, AGENT_PRELOAD_DELAY_MS),
      );
    }
    this.#unsubscribe.push(this.#o.clock.onChange(() => this.timeMoved()));
    if (this.#o.relay) this.#unsubscribe.push(this.#o.relay.onChange(() => this.notify()));
    this.#loop = this.#run();
  }

  /** A clock moved (the emulator's or an org's): deliveries and chores may be due now. */
  timeMoved(): void {
    this.#sweepDue = true;
    this.notify();
  }

  /** Something may be due now: a new event, a moved clock, a freed endpoint. */
  notify(): void {
    this.#kicks += 1;
    this.#kicked = true;
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  /** Resolves once everything due at the current clock time has been attempted and recorded. */
  settled(): Promise<void> {
    return new Promise((resolve) => {
      this.#idleWaiters.push({afterPass: this.#pass, resolve});
      this.notify();
    });
  }

  /** Stops claiming, cuts in-flight attempts short without counting them, and waits for the lanes to hand back. */
  async stop(): Promise<void> {
    if (this.#stopping) return;
    this.#stopping = true;
    this.#shutdown.abort();
    for (const unsubscribe of this.#unsubscribe) unsubscribe();
    this.notify();
    await this.#loop;
    await Promise.allSettled(this.#lanes.values());
    for (const waiter of this.#idleWaiters.splice(0)) waiter.resolve();
    if (this.#ownsDispatcher)
      await (await this.#dispatcher?.catch(() => undefined))?.close().catch(() => undefined);
  }

  #agent(): Promise<Dispatcher> {
    if (this.#dispatcher) return this.#dispatcher;
    if (this.#o.dispatcher) {
      this.#dispatcher = Promise.resolve(this.#o.dispatcher);
      return this.#dispatcher;
    }
    this.#ownsDispatcher = true;
    this.#dispatcher = import('./delivery-agent.js').then(({createDeliveryAgent}) =>
      createDeliveryAgent({
        allowLocalEndpoints: Boolean(this.#o.allowLocalEndpoints),
        resolver: this.#o.resolver,
      }),
    );
    // A failed load is retried by the next lane rather than remembered.
    this.#dispatcher.catch(() => {
      this.#dispatcher = undefined;
    });
    return this.#dispatcher;
  }

  async #run(): Promise<void> {
    if (this.#o.exclusiveDatabase) {
      await releaseAllLeases(this.#o.db).catch((err) =>
        this.#log(`could not free old leases: ${message(err)}`),
      );
    }
    while (!this.#stopping) {
      this.#kicked = false;
      this.#pass += 1;
      let delayMs = this.#o.idleMs;
      try {
        await this.#maybeSweep();
        await this.#maybeVacuum();
        // A stop asked for meanwhile ends the pass here: nothing has been claimed that it would have to finish.
        if (this.#stopping) break;
        let claimed = 0;
        if (this.#o.vault.available) {
          if (this.#lanes.size < this.#o.maxLanes) claimed = await this.#claimAndStart();
        } else if (!this.#pausedLogged) {
          this.#pausedLogged = true;
          this.#log('deliveries paused: without a vault key no signing secret can be read');
        }
        // A full claim suggests more is due for endpoints not served yet; otherwise lanes finishing (or new
        // events) kick the loop, so there is nothing to compute until then.
        if (this.#kicked || (claimed >= this.#o.claimLimit && this.#lanes.size < this.#o.maxLanes)) continue;
        // With a lane free, sleep only until something not served here falls due (a retry of another endpoint,
        // or what a process claiming at the same moment left); lanes ending wake the loop for the rest.
        if (this.#lanes.size < this.#o.maxLanes) delayMs = await this.#sleepBudget();
      } catch (err) {
        if (this.#stopping) break;
        this.#log(`delivery worker: ${message(err)}`);
        delayMs = 500;
      }
      if (this.#lanes.size === 0 && !this.#kicked) this.#resolveIdle();
      if (!this.#kicked) await this.#sleep(delayMs);
    }
  }

  async #maybeSweep(): Promise<void> {
    const sweep = this.#o.sweep;
    if (!sweep) return;
    const realNow = this.#timers.now();
    const clockNow = this.#o.clock.now();
    const due =
      this.#sweepDue ||
      realNow - this.#lastSweepReal >= SWEEP_INTERVAL_MS ||
      (this.#nextSweepAt !== null && this.#nextSweepAt <= clockNow);
    if (!due) return;
    this.#sweepDue = false;
    this.#lastSweepReal = realNow;
    this.#nextSweepAt = await sweep(clockNow);
  }

  async #maybeVacuum(): Promise<void> {
    if (!this.#o.exclusiveDatabase || this.#writer.written < this.#o.vacuumEvery) return;
    this.#writer.written = 0;
    // Short next to the attempts it follows. The lanes keep sending meanwhile; only their records wait.
    await this.#o.db.query('VACUUM (ANALYZE) deliveries, delivery_attempts, events, sandboxes');
  }

  async #claimAndStart(): Promise<number> {
    const realNow = this.#timers.now();
    const claimed = await claimDue(this.#o.db, this.#statements, {
      now: this.#o.clock.now(),
      realNow: new Date(realNow),
      leaseUntil: new Date(realNow + this.#o.leaseMs),
      owner: this.#owner,
      busyEndpoints: [...this.#lanes.keys()],
      connectedRelays: this.#o.relay?.connectedIds() ?? [],
      // Enough rows to fill the free lanes; scanning more would only find rows for endpoints already full.
      limit: Math.min(this.#o.claimLimit, this.#o.perEndpoint * (this.#o.maxLanes - this.#lanes.size)),
      lanes: this.#o.maxLanes - this.#lanes.size,
      perEndpoint: this.#o.perEndpoint,
      exclusive: Boolean(this.#o.exclusiveDatabase),
    });
    const byEndpoint = new Map<string, ClaimedDelivery[]>();
    for (const d of claimed) {
      const list = byEndpoint.get(d.endpointId);
      if (list) list.push(d);
      else byEndpoint.set(d.endpointId, [d]);
    }
    const overflow: string[] = [];
    const freeLanes = this.#o.maxLanes - this.#lanes.size;
    let started = 0;
    for (const [endpointId, items] of byEndpoint) {
      if (this.#lanes.size >= this.#o.maxLanes || this.#lanes.has(endpointId)) {
        overflow.push(...items.map((i) => i.id));
        continue;
      }
      started += 1;
      const kicksAtStart = this.#kicks;
      const lane = this.#runLane(endpointId, items).finally(() => {
        this.#lanes.delete(endpointId);
        // More may be due for this endpoint only if its batch was full or something happened meanwhile;
        // otherwise waking the loop would just cost an empty claim.
        if (
          items.length >= this.#o.perEndpoint ||
          this.#lanesFull ||
          this.#kicks !== kicksAtStart ||
          this.#stopping
        )
          this.notify();
        else if (this.#lanes.size === 0) this.#resolveIdle();
      });
      this.#lanes.set(endpointId, lane);
    }
    // A claim serves at most one endpoint per free lane: if it found that many, others may be due as well.
    this.#lanesFull = (freeLanes > 0 && started >= freeLanes) || overflow.length > 0;
    if (!this.#o.exclusiveDatabase && overflow.length > 0) {
      await releaseLeases(this.#o.db, overflow, this.#owner);
      this.#o.onHandBack?.();
    }
    return claimed.length - overflow.length;
  }

  async #runLane(endpointId: string, items: ClaimedDelivery[]): Promise<void> {
    // Outcomes go to the writer in chunks while the lane keeps sending, so the database (on its own thread)
    // records one chunk while the next is sent, rather than all lanes sending and then all lanes writing.
    const records: AttemptRecord[] = [];
    const writes: Promise<void>[] = [];
    const flush = () => {
      if (records.length === 0) return;
      const written = this.#writer.write(records.splice(0));
      // Handled now, reported below: a rejection must not go unobserved while the lane is still sending.
      written.catch(() => undefined);
      writes.push(written);
    };
    let unsent: string[] = [];
    let leaseUntil = this.#timers.now() + this.#o.leaseMs;
    let signer: WebhookSigner | undefined;
    let target: URL | string | undefined;
    let dispatcher: Dispatcher | undefined;
    // On a database this process owns, a lane whose batch was full reads the endpoint's next batch half-way
    // through sending this one, and carries on with it: no pause for the loop's next claim between batches.
    let batch = items;
    let next: Promise<ClaimedDelivery[]> | undefined;
    let i = 0;
    try {
      for (; ; i++) {
        if (i >= batch.length) {
          if (!next) break;
          const more = await next;
          next = undefined;
          if (more.length === 0) break;
          batch = more;
          i = 0;
        }
        if (!next && i === batch.length >> 1) next = this.#readAhead(endpointId, batch);
        const item = batch[i] as ClaimedDelivery;
        const relay = this.#o.relay;
        if (this.#stopping || (item.relay && !relay?.isConnected(endpointId))) {
          unsent = batch.slice(i).map((d) => d.id);
          break;
        }
        // A lane may outlive its lease when receivers are slow; renew before an attempt could cross it.
        if (!this.#o.exclusiveDatabase && this.#timers.now() + this.#o.timeoutMs + 5_000 > leaseUntil) {
          leaseUntil = this.#timers.now() + this.#o.leaseMs;
          await extendLease(
            this.#o.db,
            batch.slice(i).map((d) => d.id),
            new Date(leaseUntil),
            this.#owner,
          );
        }
        // Chaos decides a first attempt's fate once: postponed (it comes back later, marked chaos), or sent
        // now and perhaps once more.
        const chaos = item.scheduledAttempt === 1 ? this.#o.chaos?.decide(endpointId, item.id) : undefined;
        if (chaos && chaos.postponeMs > 0) {
          await postponeFirstAttempt(this.#o.db, item.id, new Date(this.#nowMs(item) + chaos.postponeMs));
          continue;
        }
        const trigger: AttemptTrigger = chaos?.resumed ? 'chaos' : 'scheduled';
        const startedAt = new Date(this.#nowMs(item));
        // Sign: one key per lane, the secret decrypted and prepared for HMAC once, not per attempt.
        signer ??= endpointSigner(this.#o.vault, item.secretCiphertext);
        if (!signer) {
          // An unreadable secret (the vault key changed) is a failed attempt, so the schedule still ends.
          records.push(this.#record(item, startedAt, UNREADABLE_SECRET, null));
          continue;
        }
        const t = this.#signatureT(item);
        if (!item.relay) {
          target ??= parseTarget(item.url);
          dispatcher ??= await this.#agent();
        }
        // Send.
        const result = await this.#send(endpointId, item, signer, t, target, dispatcher);
        if (result.aborted) {
          unsent = batch.slice(i).map((d) => d.id);
          break;
        }
        // Record.
        records.push(this.#record(item, startedAt, result, t, trigger));
        if (chaos?.duplicate) {
          // The same event once more, as the service may send it: recorded after the attempt it repeats.
          flush();
          await Promise.all(writes);
          await this.#duplicate(endpointId, item, signer, target, dispatcher);
        }
        if (records.length >= this.#o.recordChunk) flush();
      }
    } catch (err) {
      this.#log(`delivery lane ${endpointId}: ${message(err)}`);
      // The item that failed was not recorded: it and the rest of the batch are handed back.
      unsent = batch.slice(i).map((d) => d.id);
    }
    flush();
    const outcomes = await Promise.allSettled(writes);
    const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
    // Unrecorded attempts are made again (after the lease runs out, or on the next claim here): at least once.
    if (failed) this.#log(`could not record attempts of endpoint ${endpointId}: ${message(failed.reason)}`);
    try {
      if (!this.#o.exclusiveDatabase && unsent.length > 0) {
        await releaseLeases(this.#o.db, unsent, this.#owner);
        this.#o.onHandBack?.();
      }
    } catch (err) {
      this.#log(`could not hand back ${unsent.length} delivery(ies): ${message(err)}`);
    }
  }

  /** The endpoint's batch after `batch`, read while `batch` is sent; only for a full batch on an owned database. */
  #readAhead(endpointId: string, batch: ClaimedDelivery[]): Promise<ClaimedDelivery[]> | undefined {
    const last = batch[batch.length - 1];
    if (
      !this.#o.exclusiveDatabase ||
      this.#stopping ||
      batch.length < this.#o.perEndpoint ||
      !last?.dueAt ||
      last.seq === undefined
    )
      return undefined;
    const ahead = claimEndpointAfter(this.#o.db, this.#statements, {
      endpointId,
      now: this.#o.clock.now(),
      after: {dueAt: last.dueAt, seq: last.seq},
      limit: this.#o.perEndpoint,
    });
    // Handled now; awaited (and reported) when the lane reaches it.
    ahead.catch(() => undefined);
    return ahead;
  }

  /**
   * The `t` of a signature made now: what signatureNowMs says (the emulator passes the real time unless told to
   * sign on its clock), else the worker's clock.
   */
  #signatureT(item: ClaimedDelivery): number {
    const offsetMs = item.offsetMs ?? 0;
    return Math.floor((this.#o.signatureNowMs?.(offsetMs) ?? this.#o.clock.nowMs() + offsetMs) / 1000);
  }

  /** The time of the item's org: the emulator's clock, or the org's own clock when it has one. */
  #nowMs(item: ClaimedDelivery): number {
    return this.#o.clock.nowMs() + (item.offsetMs ?? 0);
  }

  /** A chaos duplicate of `item`'s attempt: the next attempt number, freshly signed, outside the schedule. */
  async #duplicate(
    endpointId: string,
    item: ClaimedDelivery,
    signer: WebhookSigner,
    target: URL | string | undefined,
    dispatcher: Dispatcher | undefined,
  ): Promise<void> {
    const copy = {...item, attempt: item.attempt + 1};
    const startedAt = new Date(this.#nowMs(item));
    const t = this.#signatureT(item);
    const result = await this.#send(endpointId, copy, signer, t, target, dispatcher);
    if (result.aborted) return;
    await recordResend(this.#o.db, {
      deliveryId: item.id,
      attempt: copy.attempt,
      startedAt,
      durationMs: result.durationMs,
      statusCode: result.statusCode,
      error: result.error,
      responseBody: result.responseBody,
      signatureT: t,
      trigger: 'chaos',
    });
  }

  /** One attempt of `item`, signed at `t`, over the relay or HTTP; never throws. */
  #send(
    endpointId: string,
    item: ClaimedDelivery,
    signer: WebhookSigner,
    t: number,
    target: URL | string | undefined,
    dispatcher: Dispatcher | undefined,
  ): Promise<AttemptResult> {
    const route: SendRoute = {
      relay: this.#o.relay,
      target,
      dispatcher,
      timeoutMs: this.#o.timeoutMs,
      maxResponseBytes: this.#o.maxResponseBytes,
      allowLocalEndpoints: Boolean(this.#o.allowLocalEndpoints),
      signal: this.#shutdown.signal,
    };
    return sendSigned(endpointId, item, attemptHeaders(item, signer, t), route);
  }

  /**
   * Runs `fn` while no lane serves the endpoint and none can start for it: a resend goes out between the
   * endpoint's scheduled attempts, never beside one, so attempt numbers cannot collide and the endpoint still
   * sees one request at a time.
   */
  async holdEndpoint<T>(endpointId: string, fn: () => Promise<T>): Promise<T> {
    for (let lane = this.#lanes.get(endpointId); lane; lane = this.#lanes.get(endpointId)) {
      await lane.catch(() => undefined);
    }
    const run = fn();
    const held = run.then(
      () => undefined,
      () => undefined,
    );
    this.#lanes.set(endpointId, held);
    try {
      return await run;
    } finally {
      if (this.#lanes.get(endpointId) === held) this.#lanes.delete(endpointId);
      this.notify();
    }
  }

  /**
   * One attempt now, outside the schedule (a resend): freshly signed, the same body, the same headers as a
   * scheduled attempt. The caller holds the endpoint (holdEndpoint) and records the outcome.
   */
  async attemptNow(
    item: ClaimedDelivery,
  ): Promise<{startedAt: Date; signatureT: number | null; result: AttemptResult}> {
    const startedAt = new Date(this.#nowMs(item));
    if (item.relay && !this.#o.relay?.isConnected(item.endpointId)) {
      return {
        startedAt,
        signatureT: null,
        result: {
          ok: false,
          statusCode: null,
          error: 'no relay listener attached (is `svc listen` running?)',
          durationMs: 0,
          responseBody: null,
        },
      };
    }
    const signer = endpointSigner(this.#o.vault, item.secretCiphertext);
    if (!signer) return {startedAt, signatureT: null, result: UNREADABLE_SECRET};
    const t = this.#signatureT(item);
    const dispatcher = item.relay ? undefined : await this.#agent();
    const result = await this.#send(item.endpointId, item, signer, t, parseTarget(item.url), dispatcher);
    return {startedAt, signatureT: t, result};
  }

  #record(
    item: ClaimedDelivery,
    startedAt: Date,
    result: AttemptResult,
    signatureT: number | null,
    trigger: AttemptTrigger = 'scheduled',
  ): AttemptRecord {
    return attemptRecord(item, {
      startedAt,
      finishedAt: new Date(this.#nowMs(item)),
      result,
      signatureT,
      trigger,
    });
  }

  /**
   * Real milliseconds to sleep before the next look: until the next due time on a real clock, bounded. On a
   * shared database, also soon after a claim that came back short while something is due now: another process
   * was claiming the same endpoints at that moment (its locks were skipped), and once its claim commits, what it
   * left is ours to take. A manual clock moving wakes the worker itself.
   */
  async #sleepBudget(): Promise<number> {
    const manual = this.#o.clock.mode !== 'real';
    if (manual && this.#o.exclusiveDatabase) return this.#o.idleMs;
    const now = this.#o.clock.nowMs();
    const due = await nextDueAt(
      this.#o.db,
      new Date(this.#timers.now()),
      [...this.#lanes.keys()],
      this.#o.relay?.connectedIds() ?? [],
    );
    let delay = this.#o.idleMs;
    if (due && (!manual || due.getTime() <= now)) delay = Math.min(delay, Math.max(20, due.getTime() - now));
    if (this.#nextSweepAt) delay = Math.min(delay, Math.max(20, this.#nextSweepAt.getTime() - now));
    return delay;
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const cancel = this.#timers.setTimeout(() => {
        this.#wake = undefined;
        resolve();
      }, ms);
      this.#wake = () => {
        cancel();
        resolve();
      };
    });
  }

  #resolveIdle(): void {
    const ready = this.#idleWaiters.filter((w) => w.afterPass < this.#pass);
    if (ready.length === 0) return;
    for (const waiter of ready) {
      this.#idleWaiters.splice(this.#idleWaiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  }

  #log(line: string): void {
    this.#o.log?.(line);
  }
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
