// Delivery chaos per endpoint: GET shows it, PUT sets it ({"duplicate", "reorder", "delay_min_ms",
// "delay_max_ms", "seed"}), DELETE turns it off for the endpoint. Admin token only, like all of /_emulator.
import type {EmulatorApp, EmulatorContext} from '../context.js';
import {readJsonObject} from '../net/read-json.js';
import {getEndpointChaos, setEndpointChaos} from '../ops/chaos.js';

export function registerChaosRoutes(app: EmulatorApp, ctx: EmulatorContext): void {
  const plan = ctx.engine.chaos;
  app.get('/_emulator/webhooks/:id/chaos', async (c) =>
    c.json(await getEndpointChaos(ctx, plan, {endpointId: c.req.param('id')})),
  );
  app.put('/_emulator/webhooks/:id/chaos', async (c) => {
    const body = await readJsonObject(c, ['duplicate', 'reorder', 'delay_min_ms', 'delay_max_ms', 'seed']);
    return c.json(await setEndpointChaos(ctx, plan, {endpointId: c.req.param('id'), settings: body}));
  });
  app.delete('/_emulator/webhooks/:id/chaos', async (c) =>
    c.json(await setEndpointChaos(ctx, plan, {endpointId: c.req.param('id'), settings: null})),
  );
}
