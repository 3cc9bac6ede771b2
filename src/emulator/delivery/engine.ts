// The delivery engine: the worker, the relay hub and delivery chaos, with the chores that keep the deliveries table
// (retention) and the word to other processes sharing the database. createDeliveryEngine takes the few things it
// stands on (the database, the clocks, the vault, the address policy, the signals, the log) and knows nothing of
// the emulator's context, which is built after it with the engine as a member. It wires deliveries only: what
// records events (sandboxes) hands in its chores as `sweep`, and the control routes are mounted by app.ts.
import {randomBytes} from 'node:crypto';
import type {Dispatcher} from 'undici';
import type {SignatureClock} from '../../definitions.js';
import type {Clock} from '../clock.js';
import type {Database} from '../db/database.js';
import {purgeOlderThan} from '../db/deliveries.js';
import {type DatabaseSignals, SIGNAL_CHANNELS} from '../db/notify.js';
import type {Resolver} from '../net/address-policy.js';
import type {Vault} from '../vault.js';
import {ChaosPlan, type ChaosSettings} from './chaos.js';
import {DeliveryChanges} from './changes.js';
import {workerOfLeaseOwner} from './cancels.js';
import {RelayHub} from './relay-hub.js';
import {RelayLeases} from './relay-lease.js';
import {isRelayEndpoint} from './relay-registry.js';
import {RETENTION_MS} from './retry-policy.js';
import {settleEverywhere, unlessStopping} from './settle.js';
import {realTimers, type Timers} from './timers.js';
import {DeliveryWorker} from './worker.js';
import type {WorkerTuning} from './worker-options.js';

/** How the engine is tuned: what startEmulator's `delivery` option takes. */
export interface DeliveryEngineOptions {
  /** Real-time limit of one attempt (default: the spec's 10 s). */
  timeoutMs?: number;
  /** The time signatures carry (default: the real time, whatever the emulator's clock says). */
  signatureClock?: SignatureClock;
  /** Replaces the delivery agent (benchmarks); the caller closes it. */
  dispatcher?: Dispatcher;
  /** Delivery chaos for every endpoint; per-endpoint settings come through the control route. */
  chaos?: ChaosSettings;
  /** Passed through to the worker (lanes, batch sizes, idle polling). */
  worker?: WorkerTuning;
  /** Real-time life of a relay holder's lease after its process last renewed it (default: RELAY_LEASE_MS). */
  relayLeaseMs?: number;
}

/** What the engine stands on: handed in by whoever builds it (start/context.ts), before the context exists. */
export interface DeliveryEngineDeps {
  db: Database;
  clock: Clock;
  /** Called with a listener for every move of an org's own clock; returns the unsubscribe function. */
  onOrgClockChange(listener: () => void): () => void;
  vault: Vault;
  allowLocalEndpoints: boolean;
  /** DNS resolution for the connect-time address check. */
  resolver: Resolver;
  /** Only on PostgreSQL, which other emulator processes may share: word of their writes and work. */
  signals: DatabaseSignals | undefined;
  /** The listeners told of each endpoint deleted through this process: the relay lets its `svc listen` go. */
  endpointDeletions: Set<(endpointId: string) => void>;
  log: (line: string) => void;
  /** Clock-driven chores of other parts (sandbox expiry), run with retention; returns when next needed. */
  sweep?: (now: Date) => Promise<Date | null>;
  options?: DeliveryEngineOptions;
}

export interface DeliveryEngine {
  readonly relay: RelayHub;
  /** Who holds each relay, across the processes sharing the database. */
  readonly relayLeases: RelayLeases;
  /** Sends every attempt: the scheduled ones, and a resend's (it is the operations' `Attempter`). */
  readonly worker: DeliveryWorker;
  readonly chaos: ChaosPlan;
  /** Word that deliveries changed, in this process or another sharing the database. */
  readonly changes: DeliveryChanges;
  /** The real time the engine waits on (leases, sleeps, timeouts, a relay stream's pings). */
  readonly timers: Timers;
  /** New deliveries were recorded: this worker looks at once, and other processes sharing the database hear of it. */
  announce(): void;
  /**
   * Endpoints were deleted (alone or with their org), `holders` being the lease owners of their deliveries at that
   * moment: no request for them starts here from now on, and the promise resolves once every other process that
   * held one of their deliveries has said the same (or has not answered within CANCEL_ANSWER_MS). Called before
   * the deletion is answered, so no signed request for a deleted endpoint starts after that answer.
   */
  deleted(endpointIds: readonly string[], holders: readonly string[]): Promise<void>;
  /**
   * An org is being rewound (ops/checkpoints.ts): as `deleted`, and each holder answers only once what it was
   * sending to these endpoints is recorded, so nothing of it lands on the rows the rewind writes after.
   */
  rewinding(endpointIds: readonly string[], holders: readonly string[]): Promise<void>;
  /**
   * Resolves once the deliveries due at the clocks' current times have been attempted and recorded (by this
   * process, or on a shared PostgreSQL by any); never while the engine has not started. Rejects with 503 when the
   * emulator stops first.
   */
  settle(): Promise<void>;
  /** Starts the worker and the relay leases' renewal: once the emulator answers. */
  start(): void;
  /**
   * The server starts closing: long-lived relay streams end and `stopping` aborts, so the close need not wait for
   * them or for the waits on deliveries.
   */
  closing(): void;
  /** Aborted once the emulator stops: a wait for a delivery ends then, rather than when its connection is cut. */
  readonly stopping: AbortSignal;
  /** Finishes in-flight work and lets go of what the engine listens to; before the database closes. */
  stop(): Promise<void>;
}

/** Emulator-clock time between two purges of what is past retention. */
export const PURGE_EVERY_MS = 60_000;

/** Real time a deletion waits for a process holding its deliveries to say it stopped (a live one answers at once). */
export const CANCEL_ANSWER_MS = 5_000;

export function createDeliveryEngine(deps: DeliveryEngineDeps): DeliveryEngine {
  const o = deps.options ?? {};
  /** Names this engine's own notifications, which its worker has already acted on. */
  const processTag = randomBytes(6).toString('hex');
  const timers = o.worker?.timers ?? realTimers;
  const relay = new RelayHub(timers);
  const changes = new DeliveryChanges(timers);
  const chaos = new ChaosPlan(o.chaos);
  const word = new WordToOthers(deps.signals, processTag, deps.log);
  const retention = new RetentionChore((before) => purgeOlderThan(deps.db, before), deps.sweep);
  const worker = new DeliveryWorker({
    chaos,
    ...o.worker,
    db: deps.db,
    clock: deps.clock,
    signatureNowMs: signatureNow(o.signatureClock, deps.clock, timers),
    vault: deps.vault,
    relay,
    allowLocalEndpoints: deps.allowLocalEndpoints,
    resolver: deps.resolver,
    dispatcher: o.dispatcher,
    timeoutMs: o.timeoutMs,
    exclusiveDatabase: deps.db.kind === 'pglite',
    onHandBack: () => word.due(),
    onRecorded: (records) => {
      // Named, the change wakes only the waits for these deliveries and their events.
      changes.changed(records?.flatMap((r) => [r.deliveryId, r.eventId]));
      word.recorded();
    },
    log: deps.log,
    sweep: (now) => retention.run(now),
  });
  const relayLeases = new RelayLeases({
    db: deps.db,
    hub: relay,
    signals: deps.signals,
    processId: processTag,
    leaseMs: o.relayLeaseMs,
    timers,
    log: deps.log,
  });
  const {signals, db, clock} = deps;
  const stopping = new AbortController();
  const cancels = new CancelWord(signals, db, worker, timers, deps.log);
  const unsubscribe = [
    deps.onOrgClockChange(() => {
      // What an org's moved clock put past retention goes at the next sweep, as the emulator clock's would.
      retention.clockMoved();
      worker.timeMoved();
    }),
    listenTo(deps.endpointDeletions, (endpointId) => relay.deleted(endpointId)),
    ...(signals ? hearOthers(signals, processTag, db, relay, worker, changes) : []),
    ...cancels.listen(),
  ];
  return {
    relay,
    relayLeases,
    worker,
    chaos,
    changes,
    timers,
    announce: () => {
      changes.changed();
      worker.notify();
      word.due();
    },
    deleted: (endpointIds, holders) => cancels.deleted(endpointIds, holders),
    rewinding: (endpointIds, holders) => cancels.deleted(endpointIds, holders, {drain: true}),
    settle: () =>
      unlessStopping(
        signals ? settleEverywhere({worker, db, clock, changes}) : worker.settled(),
        stopping.signal,
      ),
    start: () => {
      relayLeases.start(db.kind === 'pglite');
      worker.start();
    },
    stopping: stopping.signal,
    closing: () => {
      stopping.abort();
      relay.closeAll();
    },
    stop: async () => {
      stopping.abort();
      for (const u of unsubscribe.splice(0)) u();
      relay.closeAll();
      await relayLeases.stop();
      await worker.stop();
    },
  };
}

function listenTo<T>(listeners: Set<(value: T) => void>, listener: (value: T) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Word from the other processes sharing the database: deleted endpoints, new work, recorded attempts. */
function hearOthers(
  signals: DatabaseSignals,
  processTag: string,
  db: Database,
  relay: RelayHub,
  worker: DeliveryWorker,
  changes: DeliveryChanges,
): (() => void)[] {
  return [
    // An endpoint deleted through another process: a relay held here that no longer exists lets go.
    signals.on(SIGNAL_CHANNELS.change, (table) => {
      if (table !== 'webhook_endpoints') return;
      for (const id of relay.connectedIds()) {
        isRelayEndpoint(db, id)
          .then((exists) => {
            if (!exists) relay.deleted(id);
          })
          .catch(() => undefined);
      }
    }),
    signals.on(SIGNAL_CHANNELS.due, (from) => {
      if (from === processTag) return;
      changes.changed();
      worker.notify();
    }),
    signals.on(SIGNAL_CHANNELS.recorded, (from) => {
      if (from !== processTag) changes.changed();
    }),
    // Whatever was announced while the connection was down is looked for now.
    signals.onReconnect(() => worker.notify()),
  ];
}

/**
 * Deleted means gone, across the processes sharing the database: the deleting process cancels the endpoints in its
 * worker at once, tells the others (`cancel`), and waits for the answer (`cancelled`) of each process whose worker
 * held one of their deliveries when they were deleted. A process cancels before it answers, and its lanes check
 * just before each request, so once every holder has answered none of them starts another. Others cancel too,
 * though they held nothing (a claim of theirs made before the deletion held its rows, so it shows among the
 * holders). A process whose word of others was cut meanwhile checks its lanes' endpoints when it is back.
 */
class CancelWord {
  readonly #waiting = new Map<string, {left: Set<string>; done: () => void}>();
  readonly #schema: Promise<string>;

  constructor(
    private readonly signals: DatabaseSignals | undefined,
    private readonly db: Database,
    private readonly worker: DeliveryWorker,
    private readonly timers: Timers,
    private readonly log: (line: string) => void,
  ) {
    this.#schema = signals
      ? db.query<{schema: string}>('SELECT current_schema() AS schema').then(
          (r) => r.rows[0]?.schema ?? '',
          () => '',
        )
      : Promise.resolve('');
  }

  listen(): (() => void)[] {
    const signals = this.signals;
    if (!signals) return [];
    return [
      signals.on(SIGNAL_CHANNELS.cancel, (payload) => {
        const [schema, token, ids, drain] = payload.split(':');
        void this.#schema.then(async (own) => {
          if (schema !== own || !token || !ids) return;
          this.worker.cancel(ids.split(','), {abort: drain === 'drain'});
          if (drain === 'drain') await this.worker.drained(ids.split(','));
          await signals
            .notify(SIGNAL_CHANNELS.cancelled, `${own}:${token}:${this.worker.owner}`)
            .catch((err: unknown) => this.log(`could not confirm a deletion: ${(err as Error).message}`));
        });
      }),
      signals.on(SIGNAL_CHANNELS.cancelled, (payload) => {
        const [, token, owner] = payload.split(':');
        const waiting = token ? this.#waiting.get(token) : undefined;
        if (!waiting || !owner) return;
        waiting.left.delete(owner);
        if (waiting.left.size === 0) waiting.done();
      }),
      // Word of a deletion may have been missed while the connection was down: endpoints served here that no longer
      // exist are cancelled now.
      signals.onReconnect(() => {
        const busy = this.worker.busyEndpoints();
        if (busy.length === 0) return;
        this.db
          .query<{id: string}>('SELECT id FROM webhook_endpoints WHERE id = ANY($1::text[])', [busy])
          .then((r) => {
            const kept = new Set(r.rows.map((row) => row.id));
            const gone = busy.filter((id) => !kept.has(id));
            if (gone.length > 0) this.worker.cancel(gone);
          })
          .catch((err: unknown) => this.log(`could not check deleted endpoints: ${(err as Error).message}`));
      }),
    ];
  }

  async deleted(
    endpointIds: readonly string[],
    holders: readonly string[],
    options: {drain?: boolean} = {},
  ): Promise<void> {
    if (endpointIds.length === 0) return;
    this.worker.cancel(endpointIds, {abort: options.drain});
    const signals = this.signals;
    if (!signals) return;
    const schema = await this.#schema;
    const token = randomBytes(9).toString('base64url');
    const left = new Set(holders.map(workerOfLeaseOwner).filter((w) => w !== this.worker.owner));
    const answered = new Promise<boolean>((resolve) => {
      if (left.size === 0) {
        resolve(true);
        return;
      }
      const cancel = this.timers.setTimeout(() => resolve(false), CANCEL_ANSWER_MS, {background: true});
      this.#waiting.set(token, {
        left,
        done: () => {
          cancel();
          resolve(true);
        },
      });
    });
    try {
      try {
        await signals.notify(
          SIGNAL_CHANNELS.cancel,
          `${schema}:${token}:${endpointIds.join(',')}${options.drain ? ':drain' : ''}`,
        );
      } catch (err) {
        // The deletion stands; the others check their lanes' endpoints once their word is back.
        this.log(`could not tell other processes of deleted endpoints: ${(err as Error).message}`);
        return;
      }
      if (!(await answered)) {
        this.log(
          `deleted endpoint(s) ${endpointIds.join(', ')}: no word from ${[...left].join(', ')}, which held their deliveries, within ${CANCEL_ANSWER_MS} ms`,
        );
      }
    } finally {
      this.#waiting.delete(token);
    }
  }
}

/**
 * The Unix milliseconds a signature's `t` is taken from, given the org clock's offset and the org time the attempt
 * is made at (its scheduled instant, when a clock move made several due): that time (the org's clock now when not
 * given) when signatures are to carry the emulator's clock, else the real time.
 */
export function signatureNow(
  signatureClock: SignatureClock | undefined,
  clock: Clock,
  timers: Timers,
): (orgOffsetMs: number, atMs?: number) => number {
  return signatureClock === 'emulator'
    ? (offsetMs, atMs) => atMs ?? clock.nowMs() + offsetMs
    : () => timers.now();
}

/**
 * Retention: what is past it is purged at most once per PURGE_EVERY_MS of emulator-clock time, and at the next
 * sweep after a clock moved backwards or an org's clock moved; the other parts' chores run first.
 */
export class RetentionChore {
  #lastPurge: number | undefined;

  constructor(
    private readonly purge: (before: Date) => Promise<unknown>,
    private readonly other?: (now: Date) => Promise<Date | null>,
  ) {}

  clockMoved(): void {
    this.#lastPurge = undefined;
  }

  /** Runs the chores due at `now`; returns when the other parts next need to run, if known. */
  async run(now: Date): Promise<Date | null> {
    const next = (await this.other?.(now)) ?? null;
    const t = now.getTime();
    const last = this.#lastPurge;
    if (last === undefined || t - last >= PURGE_EVERY_MS || t < last) {
      this.#lastPurge = t;
      await this.purge(new Date(t - RETENTION_MS));
    }
    return next;
  }
}

/**
 * The word this process sends the others sharing the database: new work (`due`) and recorded attempts. One
 * notification of each kind is in flight at a time; calls made meanwhile become one more once it is out.
 */
export class WordToOthers {
  readonly due: () => void;
  readonly recorded: () => void;

  constructor(signals: DatabaseSignals | undefined, processTag: string, log: (line: string) => void) {
    this.due = signals
      ? coalesced(
          () => signals.notify(SIGNAL_CHANNELS.due, processTag),
          (err) => log(`could not tell other processes of new deliveries: ${err.message}`),
        )
      : () => undefined;
    this.recorded = signals
      ? coalesced(
          () => signals.notify(SIGNAL_CHANNELS.recorded, processTag),
          (err) => log(`could not tell other processes of recorded attempts: ${err.message}`),
        )
      : () => undefined;
  }
}

/** Runs `send` with one call in flight at a time; calls made meanwhile become one more once it is out. */
export function coalesced(send: () => Promise<void>, failed: (err: Error) => void): () => void {
  let running = false;
  let again = false;
  const run = () => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    send()
      .catch(failed)
      .finally(() => {
        running = false;
        if (again) {
          again = false;
          run();
        }
      });
  };
  return run;
}
