// The delivery worker: claims due deliveries under a lease, runs one lane per endpoint (so each endpoint sees its
// deliveries in order; lane.ts takes each attempt through its steps: sign, send, record), and between claims
// runs its chores (maintenance.ts). It wakes when told (new event, clock moved, listener attached) or when the
// next one is due. Chaos duplicates (chaos-duplicate.ts) and resends (resend-entry.ts) are made through the same
// attempt maker. Every real-time wait goes through the injected timers (timers.ts), so a test can fake them all.
import {randomBytes} from 'node:crypto';
import {setMaxListeners} from 'node:events';
import {AttemptMaker} from './attempt-maker.js';
import {AttemptWriter} from './attempt-record.js';
import type {Attempter} from './attempter.js';
import {DeliveryCancels} from './cancels.js';
import {type ClaimedDelivery, claimDue, nextDueAt, releaseAllLeases, releaseLeases} from './claim.js';
import {type LaneContext, message, runLane} from './lane.js';
import {LaneSlots} from './lane-slots.js';
import {Maintenance} from './maintenance.js';
import {type AttemptMade, attemptNow, holdEndpoint} from './resend-entry.js';
import {PreparedStatements} from './statements.js';
import {realTimers, type Timers} from './timers.js';
import {type DeliveryWorkerOptions, type TunedWorkerOptions, withDefaults} from './worker-options.js';

export type {DeliveryWorkerOptions};

/** How long after start the delivery agent (undici) is loaded when no delivery has needed it yet. */
const AGENT_PRELOAD_DELAY_MS = 250;

/** The most real time ahead of a delivery's due time a scaled clock's claim takes it, however slow claims were. */
const CLAIM_AHEAD_MAX_MS = 1_000;

interface IdleWaiter {
  afterPass: number;
  resolve(): void;
}

export class DeliveryWorker implements Attempter {
  readonly #o: TunedWorkerOptions;
  readonly #owner = `w_${randomBytes(6).toString('hex')}`;
  readonly #lanes = new Map<string, Promise<void>>();
  /** The lanes sending (at most maxLanes); lanes waiting for an instant claimed ahead hold none. */
  readonly #slots: LaneSlots;
  readonly #shutdown = new AbortController();
  readonly #idleWaiters: IdleWaiter[] = [];
  readonly #unsubscribe: (() => void)[] = [];
  readonly #statements: PreparedStatements;
  readonly #maker: AttemptMaker;
  readonly #maintenance: Maintenance;
  readonly #lane: LaneContext;
  readonly #cancels = new DeliveryCancels();
  /**
   * Real milliseconds a pass took to its claim's answer (or its chores after it, on a scaled clock), the slowest of
   * late, decaying pass by pass.
   */
  #claimTookMs = 0;
  /** Aborted, and replaced, when a clock moves: lanes waiting for a due instant hand their deliveries back. */
  #clockMoved = new AbortController();
  readonly timers: Timers;
  #loop: Promise<void> | undefined;
  #kicked = false;
  #wake: (() => void) | undefined;
  #stopping = false;
  #pass = 0;
  #pausedLogged = false;
  /** Counts notify() calls, so a lane knows whether anything arrived for the loop since its claim began. */
  #kicks = 0;
  /**
   * The last claim filled every free lane, so endpoints may be waiting for one: a lane that ends must wake the
   * loop even when its own endpoint has nothing more due.
   */
  #lanesFull = false;

  constructor(options: DeliveryWorkerOptions) {
    const o = withDefaults(options);
    this.#o = o;
    // Every attempt in flight listens to the shutdown signal: one per lane, more than EventTarget's default of
    // ten, which would print a leak warning on the emulator's stderr.
    setMaxListeners(2 * o.maxLanes + 8, this.#shutdown.signal);
    this.#slots = new LaneSlots(o.maxLanes);
    this.timers = options.timers ?? realTimers;
    this.#statements = new PreparedStatements(o.db);
    const writer = new AttemptWriter(o.db, this.#statements, this.timers, o.onRecorded);
    this.#maker = new AttemptMaker({...o, signal: this.#shutdown.signal});
    this.#maintenance = new Maintenance({
      ...o,
      timers: this.timers,
      writer,
      vacuumEvery: o.exclusiveDatabase ? o.vacuumEvery : undefined,
    });
    this.#lane = {
      ...o,
      statements: this.#statements,
      writer,
      maker: this.#maker,
      timers: this.timers,
      cancels: this.#cancels,
      slots: this.#slots,
      slotFreed: () => this.notify(),
      aheadMs: () => this.#aheadMs(),
      signal: this.#shutdown.signal,
      clockMoved: () => this.#clockMoved.signal,
      owner: this.#owner,
      exclusiveDatabase: Boolean(o.exclusiveDatabase),
      stopping: () => this.#stopping,
      log: (line) => this.#log(line),
    };
  }

  get timeoutMs(): number {
    return this.#o.timeoutMs;
  }

  /** Whom the leases of this worker name; a resend's lease names it first (`<owner>:resend_…`). */
  get owner(): string {
    return this.#owner;
  }

  /** The deletions' mark: taken before a delivery is read to be attempted (cancels.ts). */
  mark(): number {
    return this.#cancels.mark();
  }

  /**
   * The endpoints were deleted: whatever of theirs was read here before now (claimed, read ahead, being resent)
   * gets no further request, from the moment this returns; with `abort`, its requests on the wire are cut short.
   */
  cancel(endpointIds: Iterable<string>, options: {abort?: boolean} = {}): void {
    this.#cancels.cancel(endpointIds, options);
  }

  /** Resolves once no lane (nor resend) of these endpoints runs here: what they sent is recorded by then. */
  async drained(endpointIds: Iterable<string>): Promise<void> {
    for (const id of endpointIds) {
      for (let lane = this.#lanes.get(id); lane; lane = this.#lanes.get(id))
        await lane.catch(() => undefined);
    }
  }

  /** The endpoints this worker is serving now (a lane or a resend each). */
  busyEndpoints(): string[] {
    return [...this.#lanes.keys()];
  }

  start(): void {
    if (this.#loop) return;
    // Loaded in the background a moment after start-up, so the first delivery rarely waits for it, and an
    // emulator stopped at once (`svc emulator exec` around a quick command) neither loads it nor waits for it.
    if (!this.#o.dispatcher) {
      this.#unsubscribe.push(
        this.timers.setTimeout(() => {
          if (!this.#stopping) this.#maker.agent().catch(() => undefined);
        }, AGENT_PRELOAD_DELAY_MS),
      );
    }
    this.#unsubscribe.push(this.#o.clock.onChange(() => this.timeMoved()));
    if (this.#o.relay) this.#unsubscribe.push(this.#o.relay.onChange(() => this.notify()));
    this.#loop = this.#run();
  }

  /** A clock moved (the emulator's or an org's): deliveries and chores may be due now. */
  timeMoved(): void {
    this.#maintenance.clockMoved();
    this.#clockMoved.abort();
    this.#clockMoved = new AbortController();
    this.notify();
  }

  /** Rows of the delivery tables written outside the lanes (a rewind's): they count toward the next VACUUM. */
  rowsWritten(count: number): Promise<void> {
    return this.#maintenance.rowsWritten(count);
  }

  /** Something may be due now: a new event, a moved clock, a freed endpoint. */
  notify(): void {
    this.#kicks += 1;
    this.#kicked = true;
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  /** Resolves once everything due at the current clock time has been attempted and recorded here. */
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
    await this.#maker.close();
  }

  /** Runs `fn` (a resend) between the endpoint's scheduled attempts, never beside one (resend-entry.ts). */
  holdEndpoint<T>(endpointId: string, fn: () => Promise<T>): Promise<T> {
    return holdEndpoint(this.#lanes, endpointId, fn, () => this.notify());
  }

  /** One attempt now, outside the schedule (a resend); the caller holds the endpoint and records the outcome. */
  attemptNow(item: ClaimedDelivery): Promise<AttemptMade> {
    return attemptNow(this.#maker, this.#o.vault, item, () =>
      this.#cancels.cancelled(item.endpointId, item.fence ?? 0),
    );
  }

  async #run(): Promise<void> {
    if (this.#o.exclusiveDatabase) {
      await releaseAllLeases(this.#o.db).catch((err) =>
        this.#log(`could not free old leases: ${message(err)}`),
      );
    }
    // On a scaled clock the chores come after the claim, so what falls due is not claimed behind them.
    const choresFirst = this.#o.clock.mode !== 'scaled';
    while (!this.#stopping) {
      this.#kicked = false;
      this.#pass += 1;
      const passStart = this.timers.now();
      let delayMs = this.#o.idleMs;
      try {
        if (choresFirst) await this.#maintenance.run();
        // A stop asked for meanwhile ends the pass here: nothing has been claimed that it would have to finish.
        if (this.#stopping) break;
        const claimed = await this.#claimIfSigning();
        let tookMs = this.timers.now() - passStart;
        if (!choresFirst) {
          const choresStart = this.timers.now();
          await this.#maintenance.run();
          // A claim asked for while they run waits for them as well.
          tookMs = Math.max(tookMs, this.timers.now() - choresStart);
        }
        this.#claimTookMs = Math.max(tookMs, this.#claimTookMs * 0.95);
        // A full claim suggests more is due for endpoints not served yet; otherwise lanes finishing (or new
        // events) kick the loop, so there is nothing to compute until then.
        if (this.#kicked || (claimed >= this.#o.claimLimit && this.#freeLanes() > 0)) continue;
        // With a lane free, sleep only until something not served here falls due (a retry of another endpoint,
        // or what a process claiming at the same moment left); lanes ending wake the loop for the rest.
        if (this.#freeLanes() > 0) delayMs = await this.#sleepBudget();
      } catch (err) {
        if (this.#stopping) break;
        this.#log(`delivery worker: ${message(err)}`);
        delayMs = 500;
      }
      if (this.#lanes.size === 0 && !this.#kicked) this.#resolveIdle();
      if (!this.#kicked) await this.#sleep(delayMs);
    }
  }

  /** Claims when a lane is free and secrets can be read (deliveries pause without the vault key). */
  async #claimIfSigning(): Promise<number> {
    if (this.#o.vault.available) {
      return this.#freeLanes() > 0 ? this.#claimAndStart() : 0;
    }
    if (!this.#pausedLogged) {
      this.#pausedLogged = true;
      this.#log('deliveries paused: without a vault key no signing secret can be read');
    }
    return 0;
  }

  /**
   * Lanes a claim may start: slots free, and no more than twice maxLanes lanes in all (those waiting on a scaled
   * clock for an instant claimed ahead hold no slot).
   */
  #freeLanes(): number {
    return Math.max(0, Math.min(this.#slots.free(), 2 * this.#o.maxLanes - this.#lanes.size));
  }

  async #claimAndStart(): Promise<number> {
    const realNow = this.timers.now();
    const freeLanes = this.#freeLanes();
    const fence = this.#cancels.mark();
    // Counted before the claim: word of new work that comes while its answer is on the way is news to the lanes it
    // starts (their endpoints are busy to the next pass's claim, which that word makes).
    const kicksAtClaim = this.#kicks;
    const claimed = await claimDue(this.#o.db, this.#statements, {
      // On a scaled clock, also what falls due a moment from now (#aheadMs): its lane waits for the instant.
      now: new Date(this.#o.clock.nowMs() + this.#aheadMs()),
      realNow: new Date(realNow),
      leaseUntil: new Date(realNow + this.#o.leaseMs),
      owner: this.#owner,
      busyEndpoints: [...this.#lanes.keys()],
      connectedRelays: this.#o.relay?.connectedIds() ?? [],
      // Enough rows to fill the free lanes; scanning more would only find rows for endpoints already full.
      limit: Math.min(this.#o.claimLimit, this.#o.perEndpoint * freeLanes),
      lanes: freeLanes,
      perEndpoint: this.#o.perEndpoint,
      exclusive: Boolean(this.#o.exclusiveDatabase),
    });
    const byEndpoint = new Map<string, ClaimedDelivery[]>();
    for (const d of claimed) {
      d.fence = fence;
      const list = byEndpoint.get(d.endpointId);
      if (list) list.push(d);
      else byEndpoint.set(d.endpointId, [d]);
    }
    const overflow: string[] = [];
    // Counted again: while the claim ran, a lane waiting for its instant may have taken a slot back.
    const room = this.#freeLanes();
    let started = 0;
    for (const [endpointId, items] of byEndpoint) {
      if (started >= room || this.#lanes.has(endpointId)) {
        overflow.push(...items.map((i) => i.id));
        continue;
      }
      started += 1;
      // The lane gives its slot back once it has sent (lane.ts), before its records are written.
      this.#slots.take();
      const lane = runLane(this.#lane, endpointId, items).then((dueAgain) => {
        this.#lanes.delete(endpointId);
        // More may be due for this endpoint only if its batch was full, it scheduled something already due (a
        // clock moved past its retries), or something happened meanwhile; otherwise waking the loop would just
        // cost an empty claim.
        // On a scaled clock the retry it scheduled falls due soon: the loop looks again to sleep until then.
        if (
          dueAgain ||
          this.#o.clock.mode === 'scaled' ||
          items.length >= this.#o.perEndpoint ||
          this.#lanesFull ||
          this.#kicks !== kicksAtClaim ||
          this.#stopping
        )
          this.notify();
        else if (this.#lanes.size === 0) this.#resolveIdle();
      });
      this.#lanes.set(endpointId, lane);
    }
    // A claim serves at most one endpoint per free lane: if it found that many, others may be due as well.
    this.#lanesFull = (room > 0 && started >= room) || overflow.length > 0;
    if (!this.#o.exclusiveDatabase && overflow.length > 0) {
      await releaseLeases(this.#o.db, overflow, this.#owner);
      this.#o.onHandBack?.();
    }
    return claimed.length - overflow.length;
  }

  /**
   * Real milliseconds to sleep before the next look: until the next due time on a real clock, bounded; on a scaled
   * clock until claimAheadMs before it (the claim takes it ahead and its lane waits for the instant). On a shared
   * database, also soon after a claim that came back short while something is due now: another process was
   * claiming the same endpoints at that moment (its locks were skipped), and once its claim commits, what it left
   * is ours to take. A manual clock moving wakes the worker itself.
   */
  async #sleepBudget(): Promise<number> {
    const manual = this.#o.clock.mode === 'manual';
    if (manual && this.#o.exclusiveDatabase) return this.#o.idleMs;
    const due = await nextDueAt(
      this.#o.db,
      new Date(this.timers.now()),
      [...this.#lanes.keys()],
      this.#o.relay?.connectedIds() ?? [],
    );
    // Read after the query, so the time it took is not slept on top of the wait.
    const now = this.#o.clock.nowMs();
    // Clock time to real time: a scaled clock runs `scale` times as fast. Its waits are not floored at 20 ms, which
    // at scaled:60 would make a 30 s retry up to 1.2 s late.
    const scaled = this.#o.clock.mode === 'scaled';
    const scale = scaled ? this.#o.clock.scale : 1;
    const floor = scaled ? 1 : 20;
    const until = (at: number) => Math.max(floor, Math.ceil((at - now) / scale));
    let delay = this.#o.idleMs;
    if (due && (!manual || due.getTime() <= now))
      delay = Math.min(delay, until(due.getTime() - this.#aheadMs()));
    const sweepAt = this.#maintenance.nextSweepAt;
    if (sweepAt) delay = Math.min(delay, until(sweepAt.getTime()));
    return delay;
  }

  /**
   * How far past its clock's time now the worker claims, in clock milliseconds: 0 but on a scaled clock, where the
   * lanes wait for each claimed delivery's due instant. There it is twice the real time looking took of late (the
   * chores and the claim, slower while the database is busy), at least claimAheadMs and at most
   * CLAIM_AHEAD_MAX_MS, so a delivery is in its lane before it falls due.
   */
  #aheadMs(): number {
    if (this.#o.clock.mode !== 'scaled') return 0;
    const real = Math.min(CLAIM_AHEAD_MAX_MS, Math.max(this.#o.claimAheadMs, 2 * this.#claimTookMs));
    return real * this.#o.clock.scale;
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const cancel = this.timers.setTimeout(() => {
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
