// Control routes for sandboxes and `svc trigger` (under /_emulator, so admin-token only).
import {z} from 'zod';
import {EVENT_TYPES} from '../../src/schemas/index.js';
import {LATEST_DATE_MS} from '../../src/definitions.js';
import {parseDuration} from '../clock.js';
import type {EmulatorApp, EmulatorContext} from '../context.js';
import {readJsonBody} from '../delivery/read-json.js';
import {conflict, invalidRequest, notFound} from '../http-error.js';
import {SandboxNotFoundError, type SandboxService} from './service.js';
import {SANDBOX_ACTIONS, type SandboxAction, TransitionError} from './transitions.js';

const SANDBOX_ID = /^sbx_[0-9A-Za-z]{24}$/;
const ORG_ID = /^org_[0-9A-Za-z]{24}$/;

const orgId = z
  .string({error: 'org_id must be a string'})
  .regex(ORG_ID, {error: 'org_id is not an org id'})
  .optional();
const lastError = z
  .string({error: 'last_error must be a string'})
  .min(1, {error: 'last_error must not be empty'})
  .max(1000, {error: 'last_error must be at most 1000 characters'})
  .optional();

const CreateBody = z.strictObject({
  name: z
    .string({error: 'name must be a string'})
    .trim()
    .min(1, {error: 'name must not be empty'})
    .max(100, {error: 'name must be at most 100 characters'})
    .optional(),
  expires_in: z.string({error: 'expires_in must be a duration like 10m'}).optional(),
  org_id: orgId,
});
const ActionBody = z.strictObject({last_error: lastError});
const TriggerBody = z.strictObject({
  type: z.enum(EVENT_TYPES, {error: `type must be one of ${EVENT_TYPES.join(', ')}`}),
  sandbox_id: z.string({error: 'sandbox_id must be a string'}).optional(),
  last_error: lastError,
  org_id: orgId,
});

/** Maps the service's domain errors to HTTP ones, so no route answers 500 for a bad request. */
async function handled<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof SandboxNotFoundError) throw notFound(err.message);
    if (err instanceof TransitionError) throw conflict(err.message);
    throw err;
  }
}

export function registerSandboxRoutes(
  app: EmulatorApp,
  ctx: EmulatorContext,
  sandboxes: () => SandboxService,
): void {
  app.post('/_emulator/sandboxes', async (c) => {
    const body = await readJsonBody(c, CreateBody, {emptyAllowed: true});
    let expiresInMs: number | undefined;
    if (body.expires_in !== undefined) {
      expiresInMs = parseDuration(body.expires_in);
      if (expiresInMs === undefined)
        throw invalidRequest('expires_in must be a duration like 90s, 10m, 3h or 31d');
      if (ctx.clock.nowMs() + expiresInMs > LATEST_DATE_MS)
        throw invalidRequest('expires_in is too long: the sandbox would expire after the year 9999');
    }
    const result = await handled(() =>
      sandboxes().create({orgId: body.org_id ?? ctx.orgId, name: body.name, expiresInMs}),
    );
    return c.json(result, 201);
  });

  app.get('/_emulator/sandboxes', async (c) => {
    const org = c.req.query('org_id') ?? ctx.orgId;
    if (!ORG_ID.test(org)) throw notFound('no org with this id');
    return c.json({data: await handled(() => sandboxes().list(org))});
  });

  app.get('/_emulator/sandboxes/:id', async (c) => {
    const id = c.req.param('id');
    if (!SANDBOX_ID.test(id)) throw notFound('no sandbox with this id');
    return c.json(await handled(() => sandboxes().get(id)));
  });

  app.post('/_emulator/sandboxes/:id/:action', async (c) => {
    const id = c.req.param('id');
    const action = c.req.param('action');
    if (!SANDBOX_ID.test(id)) throw notFound('no sandbox with this id');
    if (!(SANDBOX_ACTIONS as readonly string[]).includes(action) || action === 'expire') {
      throw notFound(
        `no such sandbox action; use one of ${SANDBOX_ACTIONS.filter((a) => a !== 'expire').join(', ')}`,
      );
    }
    const body = await readJsonBody(c, ActionBody, {emptyAllowed: true});
    const result = await handled(() =>
      sandboxes().act(id, action as SandboxAction, {lastError: body.last_error}),
    );
    return c.json(result, action === 'fork' ? 201 : 200);
  });

  app.post('/_emulator/trigger', async (c) => {
    const body = await readJsonBody(c, TriggerBody);
    if (body.sandbox_id !== undefined && !SANDBOX_ID.test(body.sandbox_id))
      throw notFound('no sandbox with this id');
    const result = await handled(() =>
      sandboxes().trigger({
        orgId: body.org_id ?? ctx.orgId,
        type: body.type,
        sandboxId: body.sandbox_id,
        lastError: body.last_error,
      }),
    );
    return c.json(result, 201);
  });
}
