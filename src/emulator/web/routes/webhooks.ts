// Webhook endpoints, their deliveries and each delivery's attempts.
import type {Context} from 'hono';
import {isId, MAX_ENDPOINTS_PER_ORG} from '../../../definitions.js';
import {isRelayUrl} from '../../delivery/relay-registry.js';
import {listDeliveries} from '../../ops/deliveries.js';
import {createEndpoint, deleteEndpoint, listEndpoints} from '../../ops/endpoints.js';
import {OperationError} from '../../operation-error.js';
import {type DeliveryDetail, getDeliveryDetail} from '../../ops/delivery-detail.js';
import {resendDelivery} from '../../ops/resend.js';
import type {Viewer} from '../views/layout.js';
import {ProblemPage} from '../views/pages.js';
import {
  DeleteEndpointPage,
  DeliveriesPage,
  DeliveryPage,
  type DeliveryView,
  NewEndpointPage,
  WebhooksPage,
} from '../views/webhooks.js';
import {clip, formErrors, type RegisterRoutes, render, sentence, statusOf} from '../page-kit.js';

export const registerWebhookRoutes: RegisterRoutes = (app, kit) => {
  const {ctx, assets, signedIn, signedInPost, notFoundPage, takeFlash, putFlash} = kit;

  app.get(
    '/account/webhooks',
    signedIn(async (c, s) => {
      const flash = takeFlash(s, 'webhooks');
      return render(
        c,
        WebhooksPage({
          assets,
          viewer: s.viewer,
          endpoints: await listEndpoints(ctx, s.session.orgId),
          created: flash?.kind === 'endpoint' ? flash.created : undefined,
          notice: flash?.kind === 'notice' ? flash.text : undefined,
        }),
      );
    }),
  );

  app.get(
    '/account/webhooks/new',
    signedIn(async (c, s) => {
      const count = (await listEndpoints(ctx, s.session.orgId)).filter((e) => !isRelayUrl(e.url)).length;
      if (count >= MAX_ENDPOINTS_PER_ORG) return c.redirect('/account/webhooks', 303);
      return render(c, NewEndpointPage({assets, viewer: s.viewer, allowLocal: ctx.allowLocalEndpoints}));
    }),
  );

  app.post(
    '/account/webhooks',
    signedInPost(async (c, form, s) => {
      const url = clip(form.get('url'), 4096).trim();
      const events = form.getAll('events').slice(0, 20);
      const descriptionText = clip(form.get('description'), 1000).trim();
      try {
        const {endpoint, secret, warnings} = await createEndpoint(ctx, {
          orgId: s.session.orgId,
          url,
          events,
          description: descriptionText === '' ? null : descriptionText,
        });
        putFlash(s, 'webhooks', {
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
            assets,
            viewer: s.viewer,
            allowLocal: ctx.allowLocalEndpoints,
            form: {url, events, description: descriptionText},
            errors,
            wayOut,
          }),
          statusOf(err),
        );
      }
    }),
  );

  const endpointOf = async (orgId: string, id: string) =>
    isId('webhookEndpoint', id) ? (await listEndpoints(ctx, orgId)).find((e) => e.id === id) : undefined;
  const noSuchEndpoint = (c: Context, s: {viewer: Viewer}) =>
    notFoundPage(c, s.viewer, 'This org has no such webhook endpoint.', '/account/webhooks');

  app.get(
    '/account/webhooks/:id/delete',
    signedIn(async (c, s) => {
      const endpoint = await endpointOf(s.session.orgId, c.req.param('id') as string);
      if (!endpoint) return noSuchEndpoint(c, s);
      return render(c, DeleteEndpointPage({assets, viewer: s.viewer, endpoint}));
    }),
  );

  app.post(
    '/account/webhooks/:id/delete',
    signedInPost(async (c, _form, s) => {
      const endpoint = await endpointOf(s.session.orgId, c.req.param('id') as string);
      if (!endpoint) return noSuchEndpoint(c, s);
      await deleteEndpoint(ctx, {orgId: s.session.orgId, endpointId: endpoint.id});
      putFlash(s, 'webhooks', {kind: 'notice', text: `The endpoint ${endpoint.url} is deleted.`});
      return c.redirect('/account/webhooks', 303);
    }),
  );

  app.get(
    '/account/webhooks/:id',
    signedIn(async (c, s) => {
      const endpoint = await endpointOf(s.session.orgId, c.req.param('id') as string);
      if (!endpoint) return noSuchEndpoint(c, s);
      let deliveries: Awaited<ReturnType<typeof listDeliveries>>;
      try {
        deliveries = await listDeliveries(ctx, {orgId: s.session.orgId, endpointId: endpoint.id});
      } catch (err) {
        if (!(err instanceof OperationError)) throw err;
        const message = sentence(err.message);
        return render(
          c,
          ProblemPage({assets, viewer: s.viewer, title: 'Deliveries unavailable', message}),
          err.status,
        );
      }
      return render(c, DeliveriesPage({assets, viewer: s.viewer, endpoint, deliveries}));
    }),
  );

  app.get(
    '/account/webhooks/:id/deliveries/:delivery',
    signedIn(async (c, s) => {
      const endpoint = await endpointOf(s.session.orgId, c.req.param('id') as string);
      const deliveryId = c.req.param('delivery') as string;
      const detail = endpoint ? await deliveryOf(deliveryId) : undefined;
      // The operation finds the delivery by id; it belongs here only when it went to this org's endpoint.
      if (!endpoint || !detail || detail.endpoint_id !== endpoint.id)
        return notFoundPage(c, s.viewer, 'This org has no such delivery.', '/account/webhooks');
      const flash = takeFlash(s, 'delivery');
      return render(
        c,
        DeliveryPage({
          assets,
          viewer: s.viewer,
          endpoint,
          delivery: deliveryView(detail),
          notice: flash?.kind === 'notice' ? flash.text : undefined,
        }),
      );
    }),
  );

  app.post(
    '/account/webhooks/:id/deliveries/:delivery/resend',
    signedInPost(async (c, _form, s) => {
      const endpoint = await endpointOf(s.session.orgId, c.req.param('id') as string);
      const deliveryId = c.req.param('delivery') as string;
      const detail = endpoint ? await deliveryOf(deliveryId) : undefined;
      if (!endpoint || !detail || detail.endpoint_id !== endpoint.id)
        return notFoundPage(c, s.viewer, 'This org has no such delivery.', '/account/webhooks');
      const attempter = ctx.resendAttempter?.();
      const here = `/account/webhooks/${endpoint.id}/deliveries/${deliveryId}`;
      if (!attempter) {
        putFlash(s, 'delivery', {
          kind: 'notice',
          text: 'Resend is not available: deliveries are not running.',
        });
        return c.redirect(here, 303);
      }
      try {
        const after = await resendDelivery(ctx, {deliveryId, attempter});
        const a = after.attempts.at(-1);
        const answer = a
          ? a.status_code !== null
            ? `HTTP ${a.status_code}`
            : (a.error ?? 'no answer')
          : 'sent';
        const d = after.delivery;
        const still =
          d.status === 'pending' && d.next_attempt_at
            ? ' The delivery is still pending: a resend is outside the retry schedule, whose next attempt stays as it was.'
            : '';
        putFlash(s, 'delivery', {
          kind: 'notice',
          text: `Resent as attempt ${a?.attempt ?? ''}: ${answer}.${still}`,
        });
      } catch (err) {
        if (!(err instanceof OperationError)) throw err;
        putFlash(s, 'delivery', {kind: 'notice', text: `Could not resend: ${sentence(err.message)}`});
      }
      return c.redirect(here, 303);
    }),
  );

  const deliveryOf = async (deliveryId: string) => {
    try {
      return await getDeliveryDetail(ctx, {deliveryId});
    } catch (err) {
      if (err instanceof OperationError && err.code === 'not_found') return undefined;
      throw err;
    }
  };
};

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
