// Control routes for deliveries: how each endpoint's recent deliveries are going, one delivery's detail with every
// attempt, and a resend. Admin token only, like all of
// /_emulator. The operations' errors become HTTP answers in the app's one error handler.
import type {EndpointHealth} from '../../schemas/emulator.js';
import type {List} from '../../schemas/index.js';
import type {EmulatorApp, EmulatorContext} from '../context.js';
import {endpointHealth} from '../ops/deliveries.js';
import {getDeliveryDetail} from '../ops/delivery-detail.js';
import {orgFor} from '../ops/orgs.js';
import {resendDelivery} from '../ops/resend.js';
import {resendFailedDeliveries} from '../ops/resend-failed.js';
import {waitForDelivery} from '../ops/wait.js';
import {clientGone} from '../net/body-text.js';
import {readJsonObject} from '../net/read-json.js';
import {invalidRequest} from '../http-error.js';

export function registerDeliveryControlRoutes(app: EmulatorApp, ctx: EmulatorContext): void {
  // Every endpoint of the org (the default org unless org_id names another) in one answer.
  app.get('/_emulator/webhook-health', async (c) => {
    // An org_id naming no org is 404, as on every other route that takes one.
    const data = await endpointHealth(ctx, {orgId: await orgFor(ctx, c.req.query('org_id'))});
    return c.json({data} satisfies List<EndpointHealth>);
  });
  // Held until the delivery is recorded as asked (or the time runs out: 408 timeout), woken by the engine's word
  // of changes; the caller reads nothing again and again.
  app.post('/_emulator/delivery-wait', async (c) => {
    const body = await readJsonObject(c, ['event_id', 'delivery_id', 'status', 'attempts', 'timeout_ms']);
    return c.json(await waitForDelivery(ctx, body, clientGone(c)));
  });
  app.get('/_emulator/deliveries/:id', async (c) =>
    c.json(await getDeliveryDetail(ctx, {deliveryId: c.req.param('id')})),
  );
  // The failed deliveries of the org (of one endpoint, created within `since`), oldest first, each resent now: a
  // page of them per request, going on from `after`; the client going away stops it. Not under
  // /_emulator/deliveries/: a static segment beside `:id` would cost the main router its one-expression form.
  app.post('/_emulator/failed-deliveries/resend', async (c) => {
    const body = await readJsonObject(c, ['webhook_id', 'since', 'org_id', 'limit', 'after'], {
      emptyAllowed: true,
    });
    if (body.org_id !== undefined && typeof body.org_id !== 'string')
      throw invalidRequest('org_id must be a string');
    const result = await resendFailedDeliveries(ctx, {
      orgId: (body.org_id as string | undefined) ?? ctx.current.orgId,
      endpointId: body.webhook_id,
      since: body.since,
      limit: body.limit,
      after: body.after,
      attempter: ctx.engine.worker,
      signal: clientGone(c),
    });
    return c.json(result);
  });
  app.post('/_emulator/deliveries/:id/resend', async (c) =>
    c.json(await resendDelivery(ctx, {deliveryId: c.req.param('id'), attempter: ctx.engine.worker})),
  );
}
