// Webhook endpoints, their deliveries and each delivery's attempts: one named handler per route.
import type {Context} from 'hono';
import {isId, MAX_ENDPOINTS_PER_ORG} from '../../../definitions.js';
import {isRelayUrl} from '../../delivery/relay-registry.js';
import {listDeliveries} from '../../ops/deliveries.js';
import {type DeliveryDetail, getDeliveryDetail} from '../../ops/delivery-detail.js';
import {createEndpoint, deleteEndpoint, listEndpoints} from '../../ops/endpoints.js';
import {resendDelivery} from '../../ops/resend.js';
import {OperationError} from '../../operation-error.js';
import {clip, formErrors, sentence, statusOf} from '../kit/forms.js';
import {render} from '../kit/response.js';
import type {PageKit, RegisterRoutes, SignedIn} from '../page-kit.js';
import {DeliveriesPage, DeliveryPage, type DeliveryView} from '../views/deliveries.js';
import {NewEndpointPage} from '../views/endpoint-form.js';
import {DeleteEndpointPage, WebhooksPage} from '../views/webhooks.js';

export const registerWebhookRoutes: RegisterRoutes = (app, kit) => {
  const page = (handler: (kit: PageKit, c: Context, s: SignedIn) => Promise<Response>) =>
    kit.signedIn((c, s) => handler(kit, c, s));
  const post = (handler: (kit: PageKit, c: Context, s: SignedIn) => Promise<Response>) =>
    kit.signedInPost((c, _form, s) => handler(kit, c, s));
  app.get('/account/webhooks', page(webhooksPage));
  app.get('/account/webhooks/new', page(newEndpointPage));
  app.post(
    '/account/webhooks',
    kit.signedInPost((c, form, s) => createEndpointPost(kit, c, form, s)),
  );
  app.get('/account/webhooks/:id/delete', page(deleteEndpointPage));
  app.post('/account/webhooks/:id/delete', post(deleteEndpointPost));
  app.get('/account/webhooks/:id', page(deliveriesPage));
  app.get('/account/webhooks/:id/deliveries/:delivery', page(deliveryPage));
  app.post('/account/webhooks/:id/deliveries/:delivery/resend', post(resendPost));
};

/** GET /account/webhooks: the org's endpoints, with a signing secret just made shown once. */
async function webhooksPage(kit: PageKit, c: Context, s: SignedIn): Promise<Response> {
  const flash = kit.flashes.take(s, 'webhooks');
  return render(
    c,
    WebhooksPage({
      assets: kit.assets,
      viewer: s.viewer,
      endpoints: await listEndpoints(kit.ctx, s.session.orgId),
      created: flash?.kind === 'endpoint' ? flash.created : undefined,
      notice: flash?.kind === 'notice' ? flash.text : undefined,
    }),
  );
}

/** GET /account/webhooks/new: the form, unless the org has all the endpoints it may have. */
async function newEndpointPage(kit: PageKit, c: Context, s: SignedIn): Promise<Response> {
  const count = (await listEndpoints(kit.ctx, s.session.orgId)).filter((e) => !isRelayUrl(e.url)).length;
  if (count >= MAX_ENDPOINTS_PER_ORG) return c.redirect('/account/webhooks', 303);
  return render(
    c,
    NewEndpointPage({assets: kit.assets, viewer: s.viewer, allowLocal: kit.ctx.allowLocalEndpoints}),
  );
}

/** POST /account/webhooks: creates the endpoint (its secret shown once), or the form again with its problems. */
async function createEndpointPost(
  kit: PageKit,
  c: Context,
  form: URLSearchParams,
  s: SignedIn,
): Promise<Response> {
  const url = clip(form.get('url'), 4096).trim();
  const events = form.getAll('events').slice(0, 20);
  const descriptionText = clip(form.get('description'), 1000).trim();
  try {
    const {endpoint, secret, warnings} = await createEndpoint(kit.ctx, {
      orgId: s.session.orgId,
      url,
      events,
      description: descriptionText === '' ? null : descriptionText,
    });
    kit.flashes.put(s, 'webhooks', {
      kind: 'endpoint',
      created: {endpointId: endpoint.id, url: endpoint.url, secret, warnings},
    });
    return c.redirect('/account/webhooks', 303);
  } catch (err) {
    const errors = formErrors(err, ['url', 'events', 'description']);
    // A local address on an emulator that refuses them: the page shows the ways to receive events locally
    // apart from the field's error.
    const wayOut = err instanceof OperationError && err.problems.some((p) => p.code === 'local_url');
    if (wayOut && errors.url) errors.url = sentence(errors.url);
    return render(
      c,
      NewEndpointPage({
        assets: kit.assets,
        viewer: s.viewer,
        allowLocal: kit.ctx.allowLocalEndpoints,
        form: {url, events, description: descriptionText},
        errors,
        wayOut,
      }),
      statusOf(err),
    );
  }
}

/** The org's endpoint named in the path, if there is one. */
async function endpointOf(kit: PageKit, c: Context, s: SignedIn) {
  const id = c.req.param('id') as string;
  if (!isId('webhookEndpoint', id)) return undefined;
  return (await listEndpoints(kit.ctx, s.session.orgId)).find((e) => e.id === id);
}

const noSuchEndpoint = (kit: PageKit, c: Context, s: SignedIn) =>
  kit.notFoundPage(c, s.viewer, 'This org has no such webhook endpoint.', '/account/webhooks');

/** GET /account/webhooks/:id/delete: asks before deleting. */
async function deleteEndpointPage(kit: PageKit, c: Context, s: SignedIn): Promise<Response> {
  const endpoint = await endpointOf(kit, c, s);
  if (!endpoint) return noSuchEndpoint(kit, c, s);
  return render(c, DeleteEndpointPage({assets: kit.assets, viewer: s.viewer, endpoint}));
}

/** POST /account/webhooks/:id/delete */
async function deleteEndpointPost(kit: PageKit, c: Context, s: SignedIn): Promise<Response> {
  const endpoint = await endpointOf(kit, c, s);
  if (!endpoint) return noSuchEndpoint(kit, c, s);
  await deleteEndpoint(kit.ctx, {orgId: s.session.orgId, endpointId: endpoint.id});
  kit.flashes.put(s, 'webhooks', {kind: 'notice', text: `The endpoint ${endpoint.url} is deleted.`});
  return c.redirect('/account/webhooks', 303);
}

/** GET /account/webhooks/:id: the endpoint's deliveries. */
async function deliveriesPage(kit: PageKit, c: Context, s: SignedIn): Promise<Response> {
  const endpoint = await endpointOf(kit, c, s);
  if (!endpoint) return noSuchEndpoint(kit, c, s);
  let deliveries: Awaited<ReturnType<typeof listDeliveries>>;
  try {
    deliveries = await listDeliveries(kit.ctx, {orgId: s.session.orgId, endpointId: endpoint.id});
  } catch (err) {
    if (!(err instanceof OperationError)) throw err;
    const message = sentence(err.message);
    return kit.problemPage(c, {viewer: s.viewer, title: 'Deliveries unavailable', message}, err.status);
  }
  return render(c, DeliveriesPage({assets: kit.assets, viewer: s.viewer, endpoint, deliveries}));
}

/** The endpoint and delivery named in the path, when the delivery went to this org's endpoint. */
async function deliveryOf(kit: PageKit, c: Context, s: SignedIn) {
  const endpoint = await endpointOf(kit, c, s);
  if (!endpoint) return undefined;
  try {
    const detail = await getDeliveryDetail(kit.ctx, {deliveryId: c.req.param('delivery') as string});
    // The operation finds the delivery by id; it belongs here only when it went to this org's endpoint.
    return detail.endpoint_id === endpoint.id ? {endpoint, detail} : undefined;
  } catch (err) {
    if (err instanceof OperationError && err.code === 'not_found') return undefined;
    throw err;
  }
}

const noSuchDelivery = (kit: PageKit, c: Context, s: SignedIn) =>
  kit.notFoundPage(c, s.viewer, 'This org has no such delivery.', '/account/webhooks');

/** GET /account/webhooks/:id/deliveries/:delivery: one delivery, its attempts and event. */
async function deliveryPage(kit: PageKit, c: Context, s: SignedIn): Promise<Response> {
  const found = await deliveryOf(kit, c, s);
  if (!found) return noSuchDelivery(kit, c, s);
  const flash = kit.flashes.take(s, 'delivery');
  return render(
    c,
    DeliveryPage({
      assets: kit.assets,
      viewer: s.viewer,
      endpoint: found.endpoint,
      delivery: deliveryView(found.detail),
      notice: flash?.kind === 'notice' ? flash.text : undefined,
    }),
  );
}

/** POST …/resend: one manual attempt now; the page then says how it went. */
async function resendPost(kit: PageKit, c: Context, s: SignedIn): Promise<Response> {
  const found = await deliveryOf(kit, c, s);
  if (!found) return noSuchDelivery(kit, c, s);
  const deliveryId = found.detail.delivery.id;
  const here = `/account/webhooks/${found.endpoint.id}/deliveries/${deliveryId}`;
  try {
    const after = await resendDelivery(kit.ctx, {deliveryId, attempter: kit.ctx.engine.worker});
    kit.flashes.put(s, 'delivery', {kind: 'notice', text: resentText(after)});
  } catch (err) {
    if (!(err instanceof OperationError)) throw err;
    kit.flashes.put(s, 'delivery', {kind: 'notice', text: `Could not resend: ${sentence(err.message)}`});
  }
  return c.redirect(here, 303);
}

/** How a resend went, in a sentence. */
function resentText(after: DeliveryDetail): string {
  const a = after.attempts.at(-1);
  const answer = a ? (a.status_code !== null ? `HTTP ${a.status_code}` : (a.error ?? 'no answer')) : 'sent';
  const d = after.delivery;
  const still =
    d.status === 'pending' && d.next_attempt_at
      ? ' The delivery is still pending: a resend is outside the retry schedule, whose next attempt stays as it was.'
      : '';
  return `Resent as attempt ${a?.attempt ?? ''}: ${answer}.${still}`;
}

/** The operation's record as the page shows it: attempts oldest first, the event as indented JSON. */
function deliveryView(detail: DeliveryDetail): DeliveryView {
  const d = detail.delivery;
  return {
    id: d.id,
    endpointId: detail.endpoint_id,
    eventId: d.event_id,
    eventType: d.event_type,
    status: d.status,
    attempts: d.attempts,
    createdAt: new Date(d.created_at),
    nextAttemptAt: d.next_attempt_at == null ? null : new Date(d.next_attempt_at),
    eventBody: typeof detail.event === 'string' ? detail.event : JSON.stringify(detail.event, null, 2),
    // Oldest first, numbered as sent, as the CLI and the TUI list them.
    attemptList: detail.attempts,
  };
}
