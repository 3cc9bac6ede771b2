// One table of cases for the client and the CLI, run against the msw mock and against the emulator.
// Same assertions both ways: if the mock and the emulator drift apart, one of the two runs fails.
import {expect} from 'vitest';
import {
  type ClientOptions,
  errorFromResponse,
  ForbiddenError,
  InvalidRequestError,
  NotFoundError,
  RateLimitedError,
  type SvcClient,
  UnauthorizedError,
} from '../../src/client/index.js';
import {DEPRECATION_HEADER_PATTERN} from '../../src/definitions.js';
import {newApiKeySecret, newId} from '../../src/emulator/ids.js';
import {toUserError} from '../../src/lib/error-mapper.js';
import {
  ApiKeySchema,
  DELIVERY_STATUSES,
  DeliverySchema,
  OrgSchema,
  WebhookEndpointSchema,
} from '../../src/schemas/index.js';
import type {CliResult} from '../helpers/run-cli.js';

export interface MintedKey {
  id: string;
  secret: string;
}

/** What a case may do to the world: the account page's powers, held by the test (never by an API key). */
export interface World {
  apiUrl: string;
  orgId: string;
  mintKey(input: {
    name: string;
    expires?: '30' | '90' | '365' | 'never';
    created_by?: string;
    org_id?: string;
  }): Promise<MintedKey>;
  revokeKey(id: string): Promise<void>;
  createOrg(name: string): Promise<{id: string; name: string}>;
  createWebhook(input: {
    url: string;
    events: string[];
    description?: string;
    org_id?: string;
  }): Promise<{id: string}>;
  trigger(type: 'sandbox.ready' | 'sandbox.stopped' | 'sandbox.error' | 'sandbox.expired'): Promise<void>;
  advanceClock(duration: string): Promise<void>;
}

export interface ContractContext {
  world: World;
  client(apiKey: string, options?: Partial<ClientOptions>): SvcClient;
  /** Runs the built CLI with a private config dir. */
  cli(args: string[], options?: {env?: NodeJS.ProcessEnv; input?: string}): Promise<CliResult>;
}

export interface ContractCase {
  name: string;
  run(ctx: ContractContext): Promise<void>;
}

/** A webhook URL both worlds accept; nothing listens there, so deliveries simply fail and retry. */
export const HOOK_URL = 'http://127.0.0.1:9/svc-contract';
const DAY_MS = 24 * 3600 * 1000;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected the call to fail, but it succeeded');
}

export const cases: ContractCase[] = [
  {
    name: 'GET /v1/org returns the org the key belongs to',
    async run({world, client}) {
      const key = await world.mintKey({name: 'org-reader'});
      const org = await client(key.secret).getOrg();
      expect(OrgSchema.parse(org)).toEqual(org);
      expect(org.id).toBe(world.orgId);
      expect(org.created_at).toMatch(ISO);
    },
  },
  {
    name: 'GET /v1/api-keys lists keys with prefix, status and expiry, never a secret',
    async run({world, client}) {
      const forever = await world.mintKey({name: 'forever', expires: 'never'});
      const monthly = await world.mintKey({name: 'monthly', expires: '30', created_by: 'ada@example.com'});
      const keys = await client(forever.secret).listApiKeys();
      for (const k of keys) expect(ApiKeySchema.parse(k)).toEqual(k);
      const a = keys.find((k) => k.id === forever.id)!;
      const b = keys.find((k) => k.id === monthly.id)!;
      expect(a).toMatchObject({
        name: 'forever',
        prefix: forever.secret.slice(0, 8),
        status: 'active',
        expires_at: null,
      });
      expect(b).toMatchObject({
        name: 'monthly',
        prefix: monthly.secret.slice(0, 8),
        status: 'active',
        created_by: 'ada@example.com',
      });
      expect(Date.parse(b.expires_at!) - Date.parse(b.created_at)).toBe(30 * DAY_MS);
      const text = JSON.stringify(keys);
      expect(text).not.toContain(forever.secret);
      expect(text).not.toContain(monthly.secret);
    },
  },
  {
    name: 'a revoked key gets 401 at once and is listed as revoked',
    async run({world, client}) {
      const doomed = await world.mintKey({name: 'doomed'});
      const other = await world.mintKey({name: 'other'});
      await client(doomed.secret).getOrg();
      await world.revokeKey(doomed.id);
      const err = await rejection(client(doomed.secret).getOrg());
      expect(err).toBeInstanceOf(UnauthorizedError);
      expect(err).toMatchObject({code: 'unauthorized', status: 401});
      expect(toUserError(err).exitCode).toBe(4);
      const listed = (await client(other.secret).listApiKeys()).find((k) => k.id === doomed.id);
      expect(listed?.status).toBe('revoked');
    },
  },
  {
    name: 'an expired key gets 401 once its expiry has passed and is listed as expired',
    async run({world, client}) {
      const short = await world.mintKey({name: 'short', expires: '30'});
      await client(short.secret).getOrg();
      await world.advanceClock('31d');
      expect(await rejection(client(short.secret).getOrg())).toBeInstanceOf(UnauthorizedError);
      const fresh = await world.mintKey({name: 'fresh'});
      const listed = (await client(fresh.secret).listApiKeys()).find((k) => k.id === short.id);
      expect(listed?.status).toBe('expired');
    },
  },
  {
    name: 'unknown and malformed keys get the same 401',
    async run({client}) {
      for (const key of [newApiKeySecret(), 'svc_short', 'not-a-key']) {
        const err = await rejection(client(key).getOrg());
        expect(err).toBeInstanceOf(UnauthorizedError);
        expect((err as UnauthorizedError).status).toBe(401);
      }
    },
  },
  {
    name: "another org's keys and org are invisible",
    async run({world, client}) {
      const other = await world.createOrg('Other Org');
      const theirs = await world.mintKey({name: 'theirs', org_id: other.id});
      const ours = await world.mintKey({name: 'ours'});
      expect((await client(ours.secret).listApiKeys()).map((k) => k.id)).not.toContain(theirs.id);
      expect((await client(theirs.secret).getOrg()).id).toBe(other.id);
      expect((await client(theirs.secret).listApiKeys()).map((k) => k.id)).toEqual([theirs.id]);
    },
  },
  {
    name: 'GET /v1/webhooks lists endpoints with url, events and description, never the signing secret',
    async run({world, client}) {
      const key = await world.mintKey({name: 'hooks'});
      const hook = await world.createWebhook({
        url: HOOK_URL,
        events: ['sandbox.ready', 'sandbox.error'],
        description: 'contract',
      });
      const list = await client(key.secret).listWebhooks();
      for (const w of list) expect(WebhookEndpointSchema.parse(w)).toEqual(w);
      const found = list.find((w) => w.id === hook.id);
      expect(found).toMatchObject({url: HOOK_URL, description: 'contract'});
      expect([...found!.events].sort()).toEqual(['sandbox.error', 'sandbox.ready']);
      expect(found!.id).toMatch(/^we_[0-9A-Za-z]{24}$/);
      expect(JSON.stringify(list)).not.toContain('whsec_');
    },
  },
  {
    name: 'deliveries: none for a new endpoint, one per subscribed event afterwards',
    async run({world, client}) {
      const key = await world.mintKey({name: 'deliveries'});
      const hook = await world.createWebhook({url: HOOK_URL, events: ['sandbox.ready']});
      const c = client(key.secret);
      expect(await c.listDeliveries(hook.id)).toEqual([]);
      await world.trigger('sandbox.error'); // not subscribed: no delivery
      await world.trigger('sandbox.ready');
      const deliveries = await c.listDeliveries(hook.id);
      expect(deliveries).toHaveLength(1);
      const [d] = deliveries;
      expect(DeliverySchema.parse(d)).toEqual(d);
      expect(d).toMatchObject({event_type: 'sandbox.ready'});
      expect(d!.id).toMatch(/^dlv_[0-9A-Za-z]{24}$/);
      expect(d!.event_id).toMatch(/^evt_[0-9A-Za-z]{24}$/);
      expect(DELIVERY_STATUSES).toContain(d!.status);
      expect(d!.attempts).toBeGreaterThanOrEqual(0);
    },
  },
  {
    name: "deliveries of an unknown endpoint or another org's endpoint are 404",
    async run({world, client}) {
      const key = await world.mintKey({name: 'nosy'});
      const other = await world.createOrg('Elsewhere');
      const theirs = await world.createWebhook({url: HOOK_URL, events: ['sandbox.ready'], org_id: other.id});
      for (const id of [newId('we'), theirs.id]) {
        const err = await rejection(client(key.secret).listDeliveries(id));
        expect(err).toBeInstanceOf(NotFoundError);
        expect(err).toMatchObject({code: 'not_found', status: 404});
        expect(toUserError(err).exitCode).toBe(1);
      }
    },
  },
  {
    name: 'an id that is not an endpoint id is refused before any request',
    async run({world, client}) {
      const key = await world.mintKey({name: 'careful'});
      let requests = 0;
      const counting = client(key.secret, {
        fetch: (input, init) => {
          requests++;
          return fetch(input, init);
        },
      });
      for (const id of ['../api-keys', 'we_x', `${newId('we')}/x`, 'we_%2F']) {
        expect(await rejection(counting.listDeliveries(id))).toBeInstanceOf(InvalidRequestError);
      }
      expect(requests).toBe(0);
    },
  },
  {
    name: 'creating or revoking with an API key is always 403, mapped to exit code 5',
    async run({world}) {
      const key = await world.mintKey({name: 'would-be-admin'});
      const headers = {authorization: `Bearer ${key.secret}`, 'content-type': 'application/json'};
      const attempts = [
        fetch(`${world.apiUrl}/v1/api-keys`, {method: 'POST', headers, body: '{"name":"x"}'}),
        fetch(`${world.apiUrl}/v1/api-keys/${key.id}`, {method: 'DELETE', headers}),
        fetch(`${world.apiUrl}/v1/webhooks`, {
          method: 'POST',
          headers,
          body: JSON.stringify({url: HOOK_URL}),
        }),
      ];
      const [createKey, revokeKey, createHook] = await Promise.all(attempts);
      for (const res of [createKey!, revokeKey!, createHook!]) {
        expect(res.status).toBe(403);
        const body = await res.json();
        expect(body.error.code).toBe('forbidden');
        const mapped = errorFromResponse(res.status, body, {
          url: res.url,
          accountUrl: `${world.apiUrl}/account`,
        });
        expect(mapped).toBeInstanceOf(ForbiddenError);
        expect(toUserError(mapped).exitCode).toBe(5);
        expect(mapped.message).toContain(`account page: ${world.apiUrl}/account`);
      }
      // RFC 9745: a date, `@` and Unix seconds.
      expect(createHook!.headers.get('deprecation')).toMatch(DEPRECATION_HEADER_PATTERN);
    },
  },
  {
    name: 'svc keys list --json prints {"data": [...]} on stdout and nothing else',
    async run({world, cli}) {
      const key = await world.mintKey({name: 'cli-list', expires: '90'});
      const r = await cli(['keys', 'list', '--json'], {
        env: {SVC_API_KEY: key.secret, SVC_API_URL: world.apiUrl},
      });
      expect(r.code).toBe(0);
      const doc = JSON.parse(r.stdout);
      expect(doc.data.find((k: {id: string}) => k.id === key.id)).toMatchObject({
        name: 'cli-list',
        status: 'active',
      });
      expect(r.stdout + r.stderr).not.toContain(key.secret);
    },
  },
  {
    name: 'svc org and svc webhooks list print tables for people',
    async run({world, cli}) {
      const key = await world.mintKey({name: 'cli-tables'});
      await world.createWebhook({url: HOOK_URL, events: ['sandbox.stopped'], description: 'for people'});
      const env = {SVC_API_KEY: key.secret, SVC_API_URL: world.apiUrl};
      const org = await cli(['org'], {env});
      expect(org.code).toBe(0);
      expect(org.stdout).toMatch(new RegExp(`ID +${world.orgId}`));
      const hooks = await cli(['webhooks', 'list'], {env});
      expect(hooks.code).toBe(0);
      expect(hooks.stdout).toMatch(/^ID +URL +EVENTS +DESCRIPTION +CREATED/);
      expect(hooks.stdout).toContain(HOOK_URL);
      expect(hooks.stdout).toContain('for people');
    },
  },
  {
    name: 'svc org --json with a revoked key: exit 4 and the error shape on stdout',
    async run({world, cli}) {
      const key = await world.mintKey({name: 'cli-revoked'});
      await world.revokeKey(key.id);
      const r = await cli(['org', '--json'], {env: {SVC_API_KEY: key.secret, SVC_API_URL: world.apiUrl}});
      expect(r.code).toBe(4);
      expect(JSON.parse(r.stdout)).toEqual({
        error: {
          code: 'unauthorized',
          message:
            'the API key in SVC_API_KEY was rejected (revoked or expired?). Set SVC_API_KEY to a new key',
        },
      });
      expect(r.stdout + r.stderr).not.toContain(key.secret);
    },
  },
  {
    name: 'svc webhooks deliveries --json: the list, a --status filter, and not_found for an unknown endpoint',
    async run({world, cli}) {
      const key = await world.mintKey({name: 'cli-deliveries'});
      const hook = await world.createWebhook({url: HOOK_URL, events: ['sandbox.expired']});
      await world.trigger('sandbox.expired');
      const env = {SVC_API_KEY: key.secret, SVC_API_URL: world.apiUrl};
      const all = await cli(['webhooks', 'deliveries', hook.id, '--json'], {env});
      expect(all.code).toBe(0);
      const [only] = JSON.parse(all.stdout).data;
      expect(only.event_type).toBe('sandbox.expired');
      const other = DELIVERY_STATUSES.find((s) => s !== only.status)!;
      const filtered = await cli(['webhooks', 'deliveries', hook.id, '--status', other, '--json'], {env});
      expect(JSON.parse(filtered.stdout)).toEqual({data: []});
      const missing = await cli(['webhooks', 'deliveries', newId('we'), '--json'], {env});
      expect(missing.code).toBe(1);
      expect(JSON.parse(missing.stdout).error.code).toBe('not_found');
    },
  },
  {
    name: 'svc login stores a key that svc auth status then reports by prefix',
    async run({world, cli}) {
      const key = await world.mintKey({name: 'cli-login'});
      const login = await cli(['login', '--api-url', world.apiUrl], {input: `${key.secret}\n`});
      expect(login.code).toBe(0);
      const status = await cli(['auth', 'status', '--json', '--api-url', world.apiUrl]);
      expect(status.code).toBe(0);
      expect(JSON.parse(status.stdout)).toMatchObject({
        source: 'file',
        api_url: world.apiUrl,
        key_prefix: key.secret.slice(0, 8),
        org: {id: world.orgId},
      });
      expect(login.stdout + login.stderr + status.stdout + status.stderr).not.toContain(key.secret);
    },
  },
  {
    // Last: it rate-limits this address until the clock moves on.
    name: 'repeated failed authentication is rate limited with Retry-After, and recovers',
    async run({world, client}) {
      const good = await world.mintKey({name: 'patient'});
      let limited: RateLimitedError | undefined;
      for (let i = 0; i < 40 && !limited; i++) {
        const err = await rejection(client(newApiKeySecret(), {retries: 0}).getOrg());
        if (err instanceof RateLimitedError) limited = err;
        else expect(err).toBeInstanceOf(UnauthorizedError);
      }
      expect(limited).toBeInstanceOf(RateLimitedError);
      expect(limited!.retryAfterSeconds).toBeGreaterThan(0);
      await world.advanceClock('10m');
      await expect(client(good.secret).getOrg()).resolves.toMatchObject({id: world.orgId});
    },
  },
];
