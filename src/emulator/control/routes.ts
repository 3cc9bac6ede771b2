// The control surface: the emulator's stand-in for the account page, for scripts and CI. Admin token only;
// each route reads its input and calls an operation (emulator/ops), which enforces the rules.
import type {CreatedKey, CreatedWebhook, Health} from '../../schemas/emulator.js';
import type {EmulatorApp, EmulatorContext} from '../context.js';
import {HttpError} from '../http-error.js';
import {limitBody} from '../net/body-text.js';
import {readJsonObject} from '../net/read-json.js';
import {moveClock, readClock} from '../ops/clock.js';
import {createEndpoint, deleteEndpoint} from '../ops/endpoints.js';
import {createKey, revokeKey} from '../ops/keys.js';
import {createOrg, orgFor} from '../ops/orgs.js';
import {adminAuth} from './admin-auth.js';
import {clockMoveOf, orgIdOf, registerOrgRoutes} from './org-routes.js';
import {STATE_IMPORT_PATH} from './state-routes.js';
import {registerControlTokenRoutes} from './token-routes.js';
import {controlTokenScope} from './token-scope.js';

export const MAX_CONTROL_BODY_BYTES = 64 * 1024;

export function registerControlRoutes(app: EmulatorApp, ctx: EmulatorContext): void {
  app.use('/_emulator/*', adminAuth(ctx));
  const smallBodies = limitBody(MAX_CONTROL_BODY_BYTES, () => {
    throw new HttpError(
      413,
      'payload_too_large',
      `request bodies are limited to ${MAX_CONTROL_BODY_BYTES} bytes`,
    );
  });
  // A state file is loaded whole in one request; its route sets a limit of its own.
  app.use('/_emulator/*', (c, next) => (c.req.path === STATE_IMPORT_PATH ? next() : smallBodies(c, next)));
  // After the body limit: a control token of one org is held to it, which may mean reading the body.
  app.use('/_emulator/*', controlTokenScope(ctx));

  app.get('/_emulator/health', (c) =>
    c.json({
      ok: true,
      org_id: ctx.current.orgId,
      // Only when off: nothing to say about the usual case, and hard to miss in the unusual one.
      ...(ctx.limiter.enabled ? {} : {rate_limit: 'off' as const}),
    } satisfies Health),
  );

  app.post('/_emulator/orgs', async (c) => {
    const body = await readJsonObject(c, ['name']);
    return c.json(await createOrg(ctx, {name: body.name}), 201);
  });

  app.post('/_emulator/keys', async (c) => {
    const body = await readJsonObject(c, ['name', 'expires', 'created_by', 'org_id']);
    const orgId = await orgFor(ctx, orgIdOf(body));
    const {key, secret} = await createKey(ctx, {
      orgId,
      name: body.name,
      expires: body.expires,
      createdBy: body.created_by,
    });
    const {status: _status, last_used_at: _lastUsed, ...record} = key;
    return c.json({...record, secret} satisfies CreatedKey, 201);
  });

  app.post('/_emulator/keys/:id/revoke', async (c) => {
    return c.json(await revokeKey(ctx, {keyId: c.req.param('id')}));
  });

  app.post('/_emulator/webhooks', async (c) => {
    const body = await readJsonObject(c, ['url', 'events', 'description', 'org_id']);
    const orgId = await orgFor(ctx, orgIdOf(body));
    const created = await createEndpoint(ctx, {
      orgId,
      url: body.url,
      events: body.events,
      description: body.description,
    });
    return c.json(
      {...created.endpoint, secret: created.secret, warnings: created.warnings} satisfies CreatedWebhook,
      201,
    );
  });

  app.delete('/_emulator/webhooks/:id', async (c) => {
    await deleteEndpoint(ctx, {endpointId: c.req.param('id')});
    return c.body(null, 204);
  });

  app.get('/_emulator/clock', async (c) => c.json(await readClock(ctx)));
  app.post('/_emulator/clock', async (c) => {
    const {move, settle} = clockMoveOf(await readJsonObject(c, ['advance', 'set', 'settle']));
    const state = await moveClock(ctx, move);
    if (settle) await ctx.engine.settle();
    return c.json(state);
  });
  registerOrgRoutes(app, ctx);
  registerControlTokenRoutes(app, ctx);
}
