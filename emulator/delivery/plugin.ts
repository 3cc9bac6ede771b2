// The delivery engine as an emulator plugin: sandboxes, events, the worker, the relay and their control routes.
import {randomBytes} from 'node:crypto';
import type {Dispatcher} from 'undici';
import type {SignatureClock} from '../../src/definitions.js';
import type {EmulatorContext, EmulatorPlugin} from '../context.js';
import {registerDeliveryControlRoutes} from '../control/delivery-routes.js';
import {SIGNAL_CHANNELS} from '../db/notify.js';
import {registerSandboxRoutes} from '../sandboxes/routes.js';
import {SandboxService} from '../sandboxes/service.js';
import {RelayHub} from './relay-hub.js';
import {isRelayEndpoint} from './relay-registry.js';
import {registerRelayRoutes} from './relay-routes.js';
import {purgeOlderThan} from './repository.js';
import {RETENTION_MS} from './retry-policy.js';
import {DeliveryWorker, type DeliveryWorkerOptions} from './worker.js';

export interface DeliveryPluginOptions {
  /** Real-time limit of one attempt (default: the spec's 10 s). */
  timeoutMs?: number;
  /** The time signatures carry (default: the real time, whatever the emulator's clock says). */
  signatureClock?: SignatureClock;
  /** Replaces the delivery agent (benchmarks); the caller closes it. */
  dispatcher?: Dispatcher;
  /** Passed through to the worker (lanes, batch sizes, idle polling). */
  worker?: Pick<
    DeliveryWorkerOptions,
    'maxLanes' | 'perEndpoint' | 'claimLimit' | 'idleMs' | 'leaseMs' | 'maxResponseBytes'
  >;
}

export interface DeliveryEngine {
  sandboxes: SandboxService;
  relay: RelayHub;
  worker: DeliveryWorker;
}

const PURGE_EVERY_MS = 60_000;

export interface DeliveryPlugin extends EmulatorPlugin {
  /** The running engine; created with the app's routes, started with the emulator. */
  engine(): DeliveryEngine;
}

export function createDeliveryPlugin(options: DeliveryPluginOptions = {}): DeliveryPlugin {
  let engine: DeliveryEngine | undefined;
  const unsubscribe: (() => void)[] = [];
  // Names this engine's own notifications, which its worker has already acted on.
  const processTag = randomBytes(6).toString('hex');

  const ensure = (ctx: EmulatorContext): DeliveryEngine => {
    if (engine) return engine;
    const relay = new RelayHub();
    let worker: DeliveryWorker | undefined;
    const signals = ctx.signals;
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
    const sandboxes = new SandboxService({
      db: ctx.db,
      clock: ctx.clock,
      onEvent: () => {
        worker?.notify();
        tellOthers();
      },
    });
    let lastPurge: number | undefined;
    worker = new DeliveryWorker({
      ...options.worker,
      db: ctx.db,
      clock: ctx.clock,
      signatureNowMs: options.signatureClock === 'emulator' ? () => ctx.clock.nowMs() : () => Date.now(),
      vault: ctx.vault,
      relay,
      allowLocalEndpoints: ctx.allowLocalEndpoints,
      resolver: ctx.lookup,
      dispatcher: options.dispatcher,
      timeoutMs: options.timeoutMs,
      exclusiveDatabase: ctx.db.kind === 'pglite',
      onHandBack: tellOthers,
      log: ctx.log,
      sweep: async (now) => {
        const next = await sandboxes.expireDue(now);
        const t = now.getTime();
        // A clock set backwards restarts the interval rather than postponing purges for good.
        if (lastPurge === undefined || t - lastPurge >= PURGE_EVERY_MS || t < lastPurge) {
          lastPurge = t;
          await purgeOlderThan(ctx.db, new Date(t - RETENTION_MS));
        }
        return next;
      },
    });
    engine = {sandboxes, relay, worker};
    const w = worker;
    ctx.resendAttempter = () => w;
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
          if (from !== processTag) w.notify();
        }),
        // Whatever was announced while the connection was down is looked for now.
        signals.onReconnect(() => w.notify()),
      );
    }
    return engine;
  };

  return {
    name: 'delivery',
    routes(app, ctx) {
      const e = ensure(ctx);
      registerSandboxRoutes(app, ctx, () => e.sandboxes);
      registerRelayRoutes(app, ctx, e.relay);
      registerDeliveryControlRoutes(app, ctx, () => e.worker);
    },
    start(ctx) {
      ensure(ctx).worker.start();
    },
    closing() {
      engine?.relay.closeAll();
    },
    async stop() {
      for (const u of unsubscribe.splice(0)) u();
      if (!engine) return;
      engine.relay.closeAll();
      await engine.worker.stop();
    },
    engine() {
      if (!engine) throw new Error('the delivery plugin has not been attached to an emulator yet');
      return engine;
    },
  };
}
