// Control routes for one delivery: its detail with every attempt, and a resend. Admin token only, like all of
// /_emulator. The operations' errors become HTTP answers in the app's one error handler.
import type {EmulatorApp, EmulatorContext} from '../context.js';
import {getDeliveryDetail} from '../ops/delivery-detail.js';
import type {Attempter} from '../delivery/attempter.js';
import {resendDelivery} from '../ops/resend.js';

export function registerDeliveryControlRoutes(
  app: EmulatorApp,
  ctx: EmulatorContext,
  attempter: () => Attempter,
): void {
  app.get('/_emulator/deliveries/:id', async (c) =>
    c.json(await getDeliveryDetail(ctx, {deliveryId: c.req.param('id')})),
  );
  app.post('/_emulator/deliveries/:id/resend', async (c) =>
    c.json(await resendDelivery(ctx, {deliveryId: c.req.param('id'), attempter: attempter()})),
  );
}
