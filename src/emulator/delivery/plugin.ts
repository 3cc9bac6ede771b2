// The delivery engine as an emulator plugin: the worker, the relay hub and delivery chaos, with the chores that
// keep the deliveries table (retention) and the word to other processes sharing the database. It wires
// deliveries only: what records events (sandboxes), and the control routes, are wired by engine.ts.
import {randomBytes} from 'node:crypto';
import type {Dispatcher} from 'undici';
import type {SignatureClock} from '../../definitions.js';
import type {EmulatorContext, EmulatorPlugin} from '../context.js';
import {purgeOlderThan} from '../db/deliveries.js';
import {SIGNAL_CHANNELS} from '../db/notify.js';
import {ChaosPlan, type ChaosSettings} from './chaos.js';
import {DeliveryChanges} from './changes.js';
import {RelayHub} from './relay-hub.js';
import {RelayLeases} from './relay-lease.js';
import {isRelayEndpoint} from './relay-registry.js';
import {RETENTION_MS} from './retry-policy.js';
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

const PURGE_EVERY_MS = 60_000;

export interface DeliveryPlugin extends EmulatorPlugin {
  /** The engine over this context; created on first need (routes or start), once. */
  engine(ctx?: EmulatorContext): DeliveryEngine;
}

export function createDeliveryPlugin(options: DeliveryPluginOptions = {}): DeliveryPlugin {
  let engine: DeliveryEngine | undefined;
  const unsubscribe: (() => void)[] = [];
  // Names this engine's own notifications, which its worker has already acted on.
  const processTag = randomBytes(6).toString('hex');

  const ensure = (ctx: EmulatorContext): DeliveryEngine => {
    if (engine) return engine;
    const relay = new RelayHub();
    const signals = ctx.signals;
    const relayLeases = new RelayLeases({
      db: ctx.db,
      hub: relay,
      signals,
      processId: processTag,
      leaseMs: options.relayLeaseMs,
      log: ctx.log,
    });
    // Other processes sharing the database hear of new work at once rather than at their next look. One
    // notification is in flight at a time; work recorded meanwhile is announced by one more once it is out.
    let telling = false;
    let tellAgain = false;
    const tellOthers = signals
      ? () => {
          if (telling) {
            tellAgain = true;
            return;
          }
          telling = true;
          signals
            .notify(SIGNAL_CHANNELS.due, processTag)
            .catch((err: unknown) => {
              ctx.log(`could not tell other processes of new deliveries: ${(err as Error).message}`);
            })
            .finally(() => {
              telling = false;
              if (tellAgain) {
                tellAgain = false;
                tellOthers();
              }
            });
        }
      : () => undefined;
    const changes = new DeliveryChanges();
    ctx.deliveryChanges = changes;
    const recorded = signals
      ? coalesced(
          () => signals.notify(SIGNAL_CHANNELS.recorded, processTag),
          (err) => ctx.log(`could not tell other processes of recorded attempts: ${err.message}`),
        )
      : () => undefined;
    let lastPurge: number | undefined;
    const chaos = new ChaosPlan(options.chaos);
    const worker = new DeliveryWorker({
      chaos,
      ...options.worker,
      db: ctx.db,
      clock: ctx.clock,
      signatureNowMs:
        options.signatureClock === 'emulator' ? (offsetMs) => ctx.clock.nowMs() + offsetMs : () => Date.now(),
      vault: ctx.vault,
      relay,
      allowLocalEndpoints: ctx.allowLocalEndpoints,
      resolver: ctx.lookup,
      dispatcher: options.dispatcher,
      timeoutMs: options.timeoutMs,
      exclusiveDatabase: ctx.db.kind === 'pglite',
      onHandBack: tellOthers,
      onRecorded: () => {
        changes.changed();
        recorded();
      },
      log: ctx.log,
      sweep: async (now) => {
        const next = (await options.sweep?.(now)) ?? null;
        const t = now.getTime();
        // A clock set backwards restarts the interval rather than postponing purges for good.
        if (lastPurge === undefined || t - lastPurge >= PURGE_EVERY_MS || t < lastPurge) {
          lastPurge = t;
          await purgeOlderThan(ctx.db, new Date(t - RETENTION_MS));
        }
        return next;
      },
    });
    if (ctx.orgClocks) unsubscribe.push(ctx.orgClocks.onChange(() => worker.timeMoved()));
    engine = {
      relay,
      relayLeases,
      worker,
      chaos,
      announce: () => {
        changes.changed();
        worker.notify();
        tellOthers();
      },
    };
    const w = worker;
    ctx.resendAttempter = () => w;
    ctx.settle = () => w.settled();
    const relayGone = (endpointId: string) => relay.deleted(endpointId);
    ctx.endpointDeletions?.add(relayGone);
    unsubscribe.push(() => ctx.endpointDeletions?.delete(relayGone));
    if (signals) {
      unsubscribe.push(
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
          if (from !== processTag) {
            changes.changed();
            worker.notify();
          }
        }),
        signals.on(SIGNAL_CHANNELS.recorded, (from) => {
          if (from !== processTag) changes.changed();
        }),
        // Whatever was announced while the connection was down is looked for now.
        signals.onReconnect(() => worker.notify()),
      );
    }
    return engine;
  };

  return {
    name: 'delivery',
    start(ctx) {
      const started = ensure(ctx);
      started.relayLeases.start(ctx.db.kind === 'pglite');
      started.worker.start();
    },
    closing() {
      engine?.relay.closeAll();
    },
    async stop() {
      for (const u of unsubscribe.splice(0)) u();
      if (!engine) return;
      engine.relay.closeAll();
      await engine.relayLeases.stop();
      await engine.worker.stop();
    },
    engine(ctx) {
      if (engine) return engine;
      if (!ctx) throw new Error('the delivery plugin has not been attached to an emulator yet');
      return ensure(ctx);
    },
  };
}

/** Runs `send` with one call in flight at a time; calls made meanwhile become one more once it is out. */
function coalesced(send: () => Promise<void>, failed: (err: Error) => void): () => void {
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
