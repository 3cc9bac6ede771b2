// The emulator's stand-in for the account page: admin-token only, never reachable with an API key.
import type {Context} from 'hono';
import {bodyLimit} from 'hono/body-limit';
import {createMiddleware} from 'hono/factory';
import {z} from 'zod';
import {newSigningSecret} from '../../src/lib/ids.js';
import {EVENT_TYPES, KEY_EXPIRY_CHOICES} from '../../src/schemas/index.js';
import {parseDuration} from '../clock.js';
import type {ManualClock} from '../clock.js';
import type {AppEnv, EmulatorApp, EmulatorContext} from '../context.js';
import {endpointRecord, keyRecord, LimitError} from '../db/repositories.js';
import {conflict, HttpError, invalidRequest, notFound} from '../http-error.js';
import {safeEqual} from '../auth/hash.js';
import {readJsonBody} from '../delivery/read-json.js';
import {clientAddress} from '../net/client-address.js';
import {checkEndpointUrl, resolveAndCheck} from '../net/endpoint-url.js';

export const MAX_CONTROL_BODY_BYTES = 64 * 1024;
const KEY_ID = /^key_[0-9A-Za-z]{24}$/;
const ENDPOINT_ID = /^we_[0-9A-Za-z]{24}$/;
const ORG_ID = /^org_[0-9A-Za-z]{24}$/;

const text = (field: string, max: number) =>
  z
    .string({error: `${field} must be a string`})
    .trim()
    .min(1, {error: `${field} must not be empty`})
    .max(max, {error: `${field} must be at most ${max} characters`});

const orgIdField = z.string({error: 'org_id must be a string'}).optional();

const CreateOrgBody = z.strictObject({name: text('name', 100)});
const CreateKeyBody = z.strictObject({
  name: text('name', 100),
  expires: z.enum(KEY_EXPIRY_CHOICES, {error: 'expires must be one of 30, 90, 365, never'}).optional(),
  created_by: text('created_by', 320).nullable().optional(),
  org_id: orgIdField,
});
const CreateWebhookBody = z.strictObject({
  url: z.string({error: 'url must be a string'}),
  events: z
    .array(z.string({error: 'events must be strings'}), {error: 'events must be an array of event types'})
    .min(1, {error: 'events must name at least one event type'}),
  description: z
    .string({error: 'description must be a string'})
    .max(200, {error: 'description must be at most 200 characters'})
    .nullable()
    .optional(),
  org_id: orgIdField,
});
const ClockBody = z.union([z.strictObject({advance: z.string()}), z.strictObject({set: z.string()})]);

/** Control-surface bodies: problems are named without the field path, as these routes always have. */
const readJson = <T>(c: Context, schema: z.ZodType<T>): Promise<T> =>
  readJsonBody(c, schema, {fieldPaths: false});

export function registerControlRoutes(app: EmulatorApp, ctx: EmulatorContext): void {
  app.use('/_emulator/*', adminAuth(ctx));
  app.use(
    '/_emulator/*',
    bodyLimit({
      maxSize: MAX_CONTROL_BODY_BYTES,
      onError: () => {
        throw new HttpError(
          413,
          'payload_too_large',
          `request bodies are limited to ${MAX_CONTROL_BODY_BYTES} bytes`,
        );
      },
    }),
  );

  const orgFor = async (orgId: string | undefined): Promise<string> => {
    if (orgId === undefined) return ctx.orgId;
    if (!ORG_ID.test(orgId) || !(await ctx.repos.orgs.get(orgId))) throw notFound('no org with this id');
    return orgId;
  };

  app.get('/_emulator/health', (c) => c.json({ok: true, org_id: ctx.orgId}));

  app.post('/_emulator/orgs', async (c) => {
    const body = await readJson(c, CreateOrgBody);
    return c.json(await ctx.repos.orgs.create(body.name, ctx.clock.now()), 201);
  });

  app.post('/_emulator/keys', async (c) => {
    const body = await readJson(c, CreateKeyBody);
    const orgId = await orgFor(body.org_id);
    const now = ctx.clock.now();
    try {
      const {key, secret} = await ctx.repos.keys.create({
        orgId,
        name: body.name,
        createdBy: body.created_by ?? null,
        expires: body.expires ?? 'never',
        now,
      });
      const {status: _status, last_used_at: _lastUsed, ...record} = keyRecord(key, now);
      return c.json({...record, secret}, 201);
    } catch (err) {
      if (err instanceof LimitError) throw conflict(err.message);
      throw err;
    }
  });

  app.post('/_emulator/keys/:id/revoke', async (c) => {
    const id = c.req.param('id');
    if (!KEY_ID.test(id)) throw notFound('no API key with this id');
    const key = await ctx.repos.keys.revoke(id, ctx.clock.now());
    if (!key) throw notFound('no API key with this id');
    ctx.auth.forget(key.id);
    return c.json(keyRecord(key, ctx.clock.now()));
  });

  app.post('/_emulator/webhooks', async (c) => {
    const body = await readJson(c, CreateWebhookBody);
    const orgId = await orgFor(body.org_id);
    const check = checkEndpointUrl(body.url, {allowLocal: ctx.allowLocalEndpoints});
    if (!check.ok) throw invalidRequest(check.reason);
    if (!ctx.allowLocalEndpoints) {
      const resolved = await resolveAndCheck(check.url.hostname, ctx.lookup);
      if (!resolved.ok) throw invalidRequest(resolved.reason);
    }
    const events = validateEvents(body.events);
    const secret = newSigningSecret();
    // Encrypting first means a deployment without a vault key refuses here, before anything is stored.
    if (!ctx.vault.available) {
      throw new HttpError(
        503,
        'vault_unavailable',
        'webhook endpoints need a vault key to store their signing secret',
      );
    }
    try {
      const endpoint = await ctx.repos.endpoints.create({
        orgId,
        url: body.url,
        events,
        description: body.description ?? null,
        secretCiphertext: ctx.vault.encrypt(secret),
        now: ctx.clock.now(),
      });
      return c.json({...endpointRecord(endpoint), secret}, 201);
    } catch (err) {
      if (err instanceof LimitError) throw conflict(err.message);
      throw err;
    }
  });

  app.delete('/_emulator/webhooks/:id', async (c) => {
    const id = c.req.param('id');
    if (!ENDPOINT_ID.test(id) || !(await ctx.repos.endpoints.delete(id))) {
      throw notFound('no webhook endpoint with this id');
    }
    return c.body(null, 204);
  });

  app.get('/_emulator/clock', (c) => c.json(clockState(ctx)));
  app.post('/_emulator/clock', async (c) => {
    const body = await readJson(c, ClockBody);
    if (ctx.clock.mode !== 'manual') {
      throw conflict('the clock is real; start the emulator with --clock manual to move time');
    }
    const clock = ctx.clock as ManualClock;
    if ('advance' in body) {
      const ms = parseDuration(body.advance);
      if (ms === undefined) throw invalidRequest('advance must be a duration like 90s, 10m, 3h or 31d');
      clock.advance(ms);
    } else {
      const to = parseIsoTime(body.set);
      if (!to) throw invalidRequest('set must be an ISO 8601 time like 2030-01-01T00:00:00Z');
      clock.set(to);
    }
    // Shared by several processes on one PostgreSQL: answered once every one of them can see the move.
    await clock.synced();
    return c.json(clockState(ctx));
  });
}

function clockState(ctx: EmulatorContext) {
  return {now: ctx.clock.now().toISOString(), mode: ctx.clock.mode};
}

function parseIsoTime(text: string): Date | undefined {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/.test(text)) return undefined;
  const d = new Date(text);
  return Number.isFinite(d.getTime()) ? d : undefined;
}

function validateEvents(events: string[]): string[] {
  const known = new Set<string>(EVENT_TYPES);
  const seen = new Set<string>();
  for (const e of events) {
    if (!known.has(e))
      throw invalidRequest(`unknown event type ${JSON.stringify(e)}; known: ${EVENT_TYPES.join(', ')}`);
    if (seen.has(e)) throw invalidRequest(`event type ${e} is listed twice`);
    seen.add(e);
  }
  return events;
}

function adminAuth(ctx: EmulatorContext) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const address = clientAddress(c);
    const wait = ctx.limiter.retryAfterSeconds(address);
    if (wait > 0) {
      throw new HttpError(429, 'rate_limited', 'too many failed authentication attempts; try again later', {
        'Retry-After': String(wait),
      });
    }
    const header = c.req.header('authorization') ?? '';
    const m = /^Bearer +(\S+) *$/i.exec(header.length > 500 ? '' : header);
    if (!m || !safeEqual(m[1] as string, ctx.adminToken)) {
      ctx.limiter.recordFailure(address);
      throw new HttpError(
        401,
        'unauthorized',
        'the emulator control surface needs its admin token (see emulator.json)',
      );
    }
    await next();
  });
}
