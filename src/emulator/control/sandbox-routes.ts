// Control routes for sandboxes and `svc trigger` (under /_emulator, so admin-token only).
import type {List} from '../../schemas/index.js';
import type {SandboxRecord} from '../../schemas/emulator.js';
import type {EmulatorApp, EmulatorContext} from '../context.js';
import {HttpError} from '../http-error.js';
import {linkCreation} from '../links/routes.js';
import {readJsonObject} from '../net/read-json.js';
import {actOnSandbox, createSandbox, getSandbox, listSandboxes, triggerEvent} from '../ops/sandboxes.js';
import {orgIdOf} from './org-routes.js';

export function registerSandboxRoutes(app: EmulatorApp, ctx: EmulatorContext): void {
  app.post('/_emulator/sandboxes', async (c) => {
    const body = await readJsonObject(c, ['name', 'expires_in', 'org_id'], {emptyAllowed: true});
    const result = await createSandbox(ctx.sandboxes, {
      orgId: orgIdOf(body) ?? ctx.current.orgId,
      name: body.name,
      expiresIn: body.expires_in,
      nowMs: ctx.clock.nowMs(),
    });
    return c.json(result, 201);
  });

  app.get('/_emulator/sandboxes', async (c) => {
    const data = await listSandboxes(ctx.sandboxes, c.req.query('org_id') ?? ctx.current.orgId);
    return c.json({data} satisfies List<SandboxRecord>);
  });

  app.get('/_emulator/sandboxes/:id', async (c) =>
    c.json(await getSandbox(ctx.sandboxes, c.req.param('id'))),
  );

  const createLink = linkCreation(ctx);
  app.post('/_emulator/sandboxes/:id/:action', async (c) => {
    const action = c.req.param('action');
    // A sandbox's links are made here too: a static `links` route beside `:action` would cost the main router
    // its one-expression form (test/emulator/router.test.ts).
    if (action === 'links') return createLink(c);
    const id = c.req.param('id');
    const body = await readJsonObject(c, ['last_error', 'org_id'], {emptyAllowed: true});
    // Named with an org, a sandbox of another org is answered like an unknown one.
    if (
      body.org_id !== undefined &&
      (await getSandbox(ctx.sandboxes, id)).org_id !== (orgIdOf(body) ?? ctx.current.orgId)
    ) {
      throw new HttpError(404, 'not_found', 'no such sandbox in this org');
    }
    const result = await actOnSandbox(ctx.sandboxes, {id, action, lastError: body.last_error});
    return c.json(result, action === 'fork' ? 201 : 200);
  });

  app.post('/_emulator/trigger', async (c) => {
    const body = await readJsonObject(c, ['type', 'sandbox_id', 'last_error', 'org_id', 'set']);
    const result = await triggerEvent(ctx.sandboxes, {
      orgId: orgIdOf(body) ?? ctx.current.orgId,
      type: body.type,
      sandboxId: body.sandbox_id,
      lastError: body.last_error,
      set: body.set,
    });
    return c.json(result, 201);
  });
}
