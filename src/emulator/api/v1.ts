// The production-shaped API under /v1: read-only for API keys, exactly as the hosted service answers.
import {createMiddleware} from 'hono/factory';
import {WEBHOOK_CREATE_DEPRECATION} from '../../definitions.js';
import type {Context} from 'hono';
import type {AppEnv, EmulatorApp, EmulatorContext} from '../context.js';
import {reserveOrRefuse} from '../auth/rate-limiter.js';
import {endpointRecord, type StoredEndpoint} from '../db/webhook-endpoints.js';
import {forbidden, HttpError, unauthorized} from '../http-error.js';
import {limiterAddress} from '../net/client-address.js';
import {requestHeader} from '../net/request-header.js';
import {listDeliveries} from '../ops/deliveries.js';
import {listKeys} from '../ops/keys.js';
import {getOrg} from '../ops/orgs.js';

export function registerV1Routes(app: EmulatorApp, ctx: EmulatorContext): void {
  // Authentication first on every /v1 path, known or not, so nothing is revealed without a key.
  app.use('/v1/*', bearerAuth(ctx));

  app.get('/v1/org', async (c) => {
    return c.json(await getOrg(ctx, c.get('key').orgId));
  });

  app.get('/v1/api-keys', async (c) => {
    return c.json({data: await listKeys(ctx, c.get('key').orgId)});
  });
  app.post('/v1/api-keys', () => {
    throw forbidden('API keys are created on the account page, never with an API key');
  });
  app.delete('/v1/api-keys/:key', () => {
    throw forbidden('API keys are revoked on the account page, never with an API key');
  });

  // The read cache hands out the same list until a write changes it, so its JSON is made once per list.
  const webhookBodies = new WeakMap<readonly StoredEndpoint[], string>();
  app.get('/v1/webhooks', async (c) => {
    const endpoints = await ctx.repos.endpoints.list(c.get('key').orgId);
    let body = webhookBodies.get(endpoints);
    if (body === undefined) {
      body = JSON.stringify({data: endpoints.map(endpointRecord)});
      webhookBodies.set(endpoints, body);
    }
    // A new headers object each time: the Node adapter adds Content-Length to it.
    return c.body(body, 200, {'Content-Type': 'application/json'});
  });
  app.post('/v1/webhooks', () => {
    throw new HttpError(
      403,
      'forbidden',
      'webhook endpoints are added on the account page by an owner or admin of the org; this route is deprecated',
      {Deprecation: WEBHOOK_CREATE_DEPRECATION},
    );
  });

  app.get('/v1/webhooks/:webhook/deliveries', async (c) => {
    const data = await listDeliveries(ctx, {orgId: c.get('key').orgId, endpointId: c.req.param('webhook')});
    return c.json({data});
  });
}

function bearerAuth(ctx: EmulatorContext) {
  return createMiddleware<AppEnv>(async (c: Context<AppEnv>, next) => {
    const held = reserveOrRefuse(ctx.limiter, limiterAddress(c));
    // Awaited only when it has to wait: a settled value would still cost a turn of the microtask queue.
    const reservation = held instanceof Promise ? await held : held;
    let key: Awaited<ReturnType<typeof ctx.auth.authenticate>>;
    try {
      key = await ctx.auth.authenticate(requestHeader(c, 'authorization'));
    } catch (err) {
      // The lookup broke, not the caller's key: that is no failed guess.
      reservation.succeeded();
      throw err;
    }
    if (!key) {
      reservation.failed();
      // The answer is the same whatever the cause; the cause goes to the request log only.
      c.set('refusal', await ctx.auth.explainRefusal(requestHeader(c, 'authorization')));
      throw unauthorized();
    }
    reservation.succeeded();
    c.set('key', {id: key.id, orgId: key.orgId, prefix: key.prefix});
    await next();
  });
}
