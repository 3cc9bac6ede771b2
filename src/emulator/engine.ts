// The emulator's moving parts, wired together as one plugin: sandboxes record events and their deliveries, the
// delivery engine sends them, and the control routes of both (sandboxes and `svc trigger`, the relay behind
// `svc listen`, a delivery's detail and resend, delivery chaos) are mounted over them.
import {registerChaosRoutes} from './control/chaos-routes.js';
import {registerDeliveryControlRoutes} from './control/delivery-routes.js';
import {registerRelayRoutes} from './control/relay-routes.js';
import {registerSandboxRoutes} from './control/sandbox-routes.js';
import {createDeliveryPlugin, type DeliveryPlugin, type DeliveryPluginOptions} from './delivery/plugin.js';
import {SandboxService} from './sandboxes/service.js';
import {orgNow} from './context.js';

export function createEnginePlugin(options: Omit<DeliveryPluginOptions, 'sweep'> = {}): DeliveryPlugin {
  let sandboxes: SandboxService | undefined;
  const delivery = createDeliveryPlugin({
    ...options,
    // Sandboxes whose expiry has come are moved (with their events) on the engine's sweep.
    sweep: (now) => sandboxes?.expireDue(now) ?? Promise.resolve(null),
  });
  return {
    ...delivery,
    name: 'engine',
    routes(app, ctx) {
      const engine = delivery.engine(ctx);
      sandboxes ??= new SandboxService({
        db: ctx.db,
        clock: ctx.clock,
        orgNow: (orgId) => orgNow(ctx, orgId),
        onEvent: () => engine.announce(),
      });
      const service = sandboxes;
      registerSandboxRoutes(app, ctx, () => service);
      registerRelayRoutes(app, ctx, engine);
      registerDeliveryControlRoutes(app, ctx, () => engine.worker);
      registerChaosRoutes(app, ctx, engine.chaos);
    },
  };
}
