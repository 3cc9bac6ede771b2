// Control routes for deliveries: how each endpoint's recent deliveries are going, one delivery's detail with every
// attempt, and a resend. Admin token only, like all of
// /_emulator. The operations' errors become HTTP answers in the app's one error handler.
import type {EndpointHealth} from '../../schemas/emulator.js';
import type {List} from '../../schemas/index.js';
import type {EmulatorApp, EmulatorContext} from '../context.js';
import {endpointHealth} from '../ops/deliveries.js';
import {getDeliveryDetail} from '../ops/delivery-detail.js';
import type {Attempter} from '../delivery/attempter.js';
import {orgFor} from '../ops/orgs.js';
import {resendDelivery} from '../ops/resend.js';

export function registerDeliveryControlRoutes(
  app: EmulatorApp,
  ctx: EmulatorContext,
  attempter: () => Attempter,
): void {
  // Every endpoint of the org (the default org unless org_id names another) in one answer.
  app.get('/_emulator/webhook-health', async (c) => {
    // An org_id naming no org is 404, as on every other route that takes one.
    const data = await endpointHealth(ctx, {orgId: await orgFor(ctx, c.req.query('org_id'))});
    return c.json({data} satisfies List<EndpointHealth>);
  });
  app.get('/_emulator/deliveries/:id', async (c) =>
    c.json(await getDeliveryDetail(ctx, {deliveryId: c.req.param('id')})),
  );
  app.post('/_emulator/deliveries/:id/resend', async (c) =>
    c.json(await resendDelivery(ctx, {deliveryId: c.req.param('id'), attempter: attempter()})),
  );
}
