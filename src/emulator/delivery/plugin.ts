// The delivery engine as an emulator plugin: the worker, the relay hub and delivery chaos, with the chores that
// keep the deliveries table (retention) and the word to other processes sharing the database. It wires
// deliveries only: what records events (sandboxes), and the control routes, are wired by engine.ts. Each part is
// a member or a function of its own: the engine built over a context, the word to and from other processes, the
// retention chore, the time signatures carry, and settling.
import {randomBytes} from 'node:crypto';
import type {Dispatcher} from 'undici';
import type {SignatureClock} from '../../definitions.js';
import type {Clock} from '../clock.js';
import type {EmulatorContext, EmulatorPlugin} from '../context.js';
import {purgeOlderThan} from '../db/deliveries.js';
import {type DatabaseSignals, SIGNAL_CHANNELS} from '../db/notify.js';
import {ChaosPlan, type ChaosSettings} from './chaos.js';
import {DeliveryChanges} from './changes.js';
import {RelayHub} from './relay-hub.js';
import {RelayLeases} from './relay-lease.js';
import {isRelayEndpoint} from './relay-registry.js';
import {RETENTION_MS} from './retry-policy.js';
import {settleEverywhere} from './settle.js';
import {realTimers, type Timers} from './timers.js';
import {DeliveryWorker, type DeliveryWorkerOptions} from './worker.js';

export interface DeliveryPluginOptions {
  /** Real-time limit of one attempt (default: the spec's 10 s). */
  timeoutMs?: number;
  /** The time signatures carry (default: the real time, whatever the emulator's clock says). */
  signatureClock?: SignatureClock;
  /** Replaces the delivery agent (benchmarks); the caller closes it. */
  dispatcher?: Dispatcher;
  /** Delivery chaos for every endpoint; per-endpoint settings come through the control route. */
  chaos?: ChaosSettings;
  /** Passed through to the worker (lanes, batch sizes, idle polling). */
  worker?: Pick<
    DeliveryWorkerOptions,
    'maxLanes' | 'perEndpoint' | 'claimLimit' | 'idleMs' | 'leaseMs' | 'maxResponseBytes' | 'timers'
  >;
  /** Real-time life of a relay holder's lease after its process last renewed it (default: RELAY_LEASE_MS). */
  relayLeaseMs?: number;
  /** Clock-driven chores of other parts (sandbox expiry), run with retention; returns when next needed. */
  sweep?: (now: Date) => Promise<Date | null>;
}

export interface DeliveryEngine {
  relay: RelayHub;
  /** Who holds each relay, across the processes sharing the database. */
  relayLeases: RelayLeases;
  worker: DeliveryWorker;
  chaos: ChaosPlan;
  /** New deliveries were recorded: this worker looks at once, and other processes sharing the database hear of it. */
  announce(): void;
}

/** Emulator-clock time between two purges of what is past retention. */
export const PURGE_EVERY_MS = 60_000;

export interface DeliveryPlugin extends EmulatorPlugin {
  /** The engine over this context; created on first need (routes or start), once. */
  engine(ctx?: EmulatorContext): DeliveryEngine;
}

/**
 * The plugin's members are own properties (arrow functions), so a plugin built over this one (engine.ts) takes
 * them by spreading it.
 */
export class DeliveryEnginePlugin implements DeliveryPlugin {
  readonly name = 'delivery';
  /** Names this engine's own notifications, which its worker has already acted on. */
  readonly processTag = randomBytes(6).toString('hex');
  readonly #options: DeliveryPluginOptions;
  readonly #unsubscribe: (() => void)[] = [];
  #engine: DeliveryEngine | undefined;

  constructor(options: DeliveryPluginOptions = {}) {
    this.#options = options;
  }

  readonly start = (ctx: EmulatorContext): void => {
    const engine = this.engine(ctx);
    engine.relayLeases.start(ctx.db.kind === 'pglite');
    engine.worker.start();
  };

  readonly closing = (): void => {
    this.#engine?.relay.closeAll();
  };

  readonly stop = async (): Promise<void> => {
    for (const u of this.#unsubscribe.splice(0)) u();
    const engine = this.#engine;
    if (!engine) return;
    engine.relay.closeAll();
    await engine.relayLeases.stop();
    await engine.worker.stop();
  };

  readonly engine = (ctx?: EmulatorContext): DeliveryEngine => {
    if (this.#engine) return this.#engine;
    if (!ctx) throw new Error('the delivery plugin has not been attached to an emulator yet');
    this.#engine = this.#build(ctx);
    return this.#engine;
  };

  #build(ctx: EmulatorContext): DeliveryEngine {
    const o = this.#options;
    const timers = o.worker?.timers ?? realTimers;
    const relay = new RelayHub(timers);
    const changes = new DeliveryChanges(timers);
    const chaos = new ChaosPlan(o.chaos);
    const word = new WordToOthers(ctx.signals, this.processTag, ctx.log);
    const retention = new RetentionChore((before) => purgeOlderThan(ctx.db, before), o.sweep);
    const worker = new DeliveryWorker({
      chaos,
      ...o.worker,
      db: ctx.db,
      clock: ctx.clock,
      signatureNowMs: signatureNow(o.signatureClock, ctx.clock, timers),
      vault: ctx.vault,
      relay,
      allowLocalEndpoints: ctx.allowLocalEndpoints,
      resolver: ctx.lookup,
      dispatcher: o.dispatcher,
      timeoutMs: o.timeoutMs,
      exclusiveDatabase: ctx.db.kind === 'pglite',
      onHandBack: () => word.due(),
      onRecorded: () => {
        changes.changed();
        word.recorded();
      },
      log: ctx.log,
      sweep: (now) => retention.run(now),
    });
    const relayLeases = new RelayLeases({
      db: ctx.db,
      hub: relay,
      signals: ctx.signals,
      processId: this.processTag,
      leaseMs: o.relayLeaseMs,
      log: ctx.log,
    });
    const engine: DeliveryEngine = {
      relay,
      relayLeases,
      worker,
      chaos,
      announce: () => {
        changes.changed();
        worker.notify();
        word.due();
      },
    };
    this.#attach(ctx, engine, changes, retention);
    return engine;
  }

  /** What the engine puts on the context, and what it listens to: the org clocks, deletions, other processes. */
  #attach(ctx: EmulatorContext, engine: DeliveryEngine, changes: DeliveryChanges, retention: RetentionChore) {
    const {worker, relay} = engine;
    ctx.deliveryChanges = changes;
    ctx.resendAttempter = () => worker;
    ctx.settle = ctx.signals
      ? () => settleEverywhere({worker, db: ctx.db, clock: ctx.clock, changes})
      : () => worker.settled();
    if (ctx.orgClocks) {
      this.#unsubscribe.push(
        ctx.orgClocks.onChange(() => {
          // What an org's moved clock put past retention goes at the next sweep, as the emulator clock's would.
          retention.clockMoved();
          worker.timeMoved();
        }),
      );
    }
    const relayGone = (endpointId: string) => relay.deleted(endpointId);
    ctx.endpointDeletions?.add(relayGone);
    this.#unsubscribe.push(() => ctx.endpointDeletions?.delete(relayGone));
    if (ctx.signals) this.#unsubscribe.push(...this.#hearOthers(ctx, ctx.signals, engine, changes));
  }

  /** Word from the other processes sharing the database: deleted endpoints, new work, recorded attempts. */
  #hearOthers(
    ctx: EmulatorContext,
    signals: DatabaseSignals,
    engine: DeliveryEngine,
    changes: DeliveryChanges,
  ): (() => void)[] {
    const {worker, relay} = engine;
    return [
      // An endpoint deleted through another process: a relay held here that no longer exists lets go.
      signals.on(SIGNAL_CHANNELS.change, (table) => {
        if (table !== 'webhook_endpoints') return;
        for (const id of relay.connectedIds()) {
          isRelayEndpoint(ctx.db, id)
            .then((exists) => {
              if (!exists) relay.deleted(id);
            })
            .catch(() => undefined);
        }
      }),
      signals.on(SIGNAL_CHANNELS.due, (from) => {
        if (from === this.processTag) return;
        changes.changed();
        worker.notify();
      }),
      signals.on(SIGNAL_CHANNELS.recorded, (from) => {
        if (from !== this.processTag) changes.changed();
      }),
      // Whatever was announced while the connection was down is looked for now.
      signals.onReconnect(() => worker.notify()),
    ];
  }
}

export function createDeliveryPlugin(options: DeliveryPluginOptions = {}): DeliveryPlugin {
  return new DeliveryEnginePlugin(options);
}

/**
 * The Unix milliseconds a signature's `t` is taken from, given the org clock's offset: the emulator's clock (and
 * the org's) when signatures are to carry it, else the real time.
 */
export function signatureNow(
  signatureClock: SignatureClock | undefined,
  clock: Clock,
  timers: Timers,
): (orgOffsetMs: number) => number {
  return signatureClock === 'emulator' ? (offsetMs) => clock.nowMs() + offsetMs : () => timers.now();
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
