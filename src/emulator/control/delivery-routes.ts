// Control routes for deliveries: how each endpoint's recent deliveries are going, one delivery's detail with every
// attempt, and a resend. Admin token only, like all of
// /_emulator. The operations' errors become HTTP answers in the app's one error handler.
import type {EndpointHealth} from '../../schemas/emulator.js';
import type {List} from '../../schemas/index.js';
import type {EmulatorApp, EmulatorContext} from '../context.js';
import {endpointHealth} from '../ops/deliveries.js';
import {getDeliveryDetail} from '../ops/delivery-detail.js';
import type {Attempter} from '../delivery/attempter.js';
import {resendDelivery} from '../ops/resend.js';
import {waitForDelivery} from '../ops/wait.js';
import {readJsonObject} from '../net/read-json.js';

export function registerDeliveryControlRoutes(
  app: EmulatorApp,
  ctx: EmulatorContext,
  attempter: () => Attempter,
): void {
  // Every endpoint of the org (the default org unless org_id names another) in one answer.
  app.get('/_emulator/webhook-health', async (c) => {
    const data = await endpointHealth(ctx, {orgId: c.req.query('org_id') ?? ctx.orgId});
    return c.json({data} satisfies List<EndpointHealth>);
  });
  // Held until the delivery is recorded as asked (or the time runs out: 408 timeout), woken by the engine's word
  // of changes; the caller reads nothing again and again.
  app.post('/_emulator/deliveries/wait', async (c) => {
    const body = await readJsonObject(c, ['event_id', 'delivery_id', 'status', 'attempts', 'timeout_ms']);
    return c.json(await waitForDelivery(ctx, body, c.req.raw.signal));
  });
  app.get('/_emulator/deliveries/:id', async (c) =>
    c.json(await getDeliveryDetail(ctx, {deliveryId: c.req.param('id')})),
  );
  app.post('/_emulator/deliveries/:id/resend', async (c) =>
    c.json(await resendDelivery(ctx, {deliveryId: c.req.param('id'), attempter: attempter()})),
  );
}
