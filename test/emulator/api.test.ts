// The /v1 API and the control surface of one real emulator, over real HTTP on loopback.
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {API_KEY_SECRET_PATTERN, WEBHOOK_CREATE_DEPRECATED_AT_SECONDS} from '../../src/definitions.js';
import {
  ApiKeySchema,
  DeliverySchema,
  listOf,
  OrgSchema,
  WebhookEndpointSchema,
} from '../../src/schemas/index.js';
import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js';
import {EmulatorControl, EmulatorControlError} from '../../src/client/emulator-control.js';
import {newId} from '../../src/ids.js';

let em: RunningEmulator;
const publicLookup = async () => [{address: '93.184.215.14', family: 4}];

beforeAll(async () => {
  em = await startEmulator({port: 0, inMemory: true, clock: 'manual', lookup: publicLookup});
});
afterAll(async () => {
  await em?.stop();
});

const get = (path: string, secret?: string, init: RequestInit = {}) =>
  fetch(`${em.apiUrl}${path}`, {
    ...init,
    headers: {...(secret ? {authorization: `Bearer ${secret}`} : {}), ...(init.headers ?? {})},
  });

async function newKey(name = 'test', extra: Parameters<EmulatorControl['createKey']>[0] = {name}) {
  return em.control.createKey({...extra, name});
}

describe('keys', () => {
  it('mints a key whose secret has the contract shape and works once created', async () => {
    const key = await newKey('ci', {name: 'ci', created_by: 'dev@example.com', expires: '30'});
    expect(key.secret).toMatch(API_KEY_SECRET_PATTERN);
    expect(key.prefix).toBe(key.secret.slice(0, 8));
    expect(key.created_by).toBe('dev@example.com');
    expect(new Date(key.expires_at as string).getTime() - new Date(key.created_at).getTime()).toBe(
      30 * 86_400_000,
    );

    const res = await get('/v1/org', key.secret);
    expect(res.status).toBe(200);
    const org = OrgSchema.parse(await res.json());
    expect(org.id).toBe(em.orgId);
  });

  it('lists keys newest first, never with a secret or a hash', async () => {
    const a = await newKey('first');
    // The manual clock stands still; move it so the two keys have different creation times.
    await em.control.advanceClock('1s');
    const b = await newKey('second');
    const res = await get('/v1/api-keys', b.secret);
    const text = await res.text();
    expect(text).not.toContain(a.secret);
    expect(text).not.toContain(b.secret);
    expect(text).not.toMatch(/[0-9a-f]{64}/);
    const list = listOf(ApiKeySchema).parse(JSON.parse(text));
    const ids = list.data.map((k) => k.id);
    expect(ids.indexOf(b.id)).toBeLessThan(ids.indexOf(a.id));
    const mine = list.data.find((k) => k.id === b.id);
    expect(mine?.status).toBe('active');
    expect(mine?.last_used_at).not.toBeNull();
  });

  it('stops a revoked key on the very next request', async () => {
    const key = await newKey('to-revoke');
    expect((await get('/v1/webhooks', key.secret)).status).toBe(200);
    const revoked = await em.control.revokeKey(key.id);
    expect(revoked.status).toBe('revoked');
    expect(JSON.stringify(revoked)).not.toContain(key.secret);
    const res = await get('/v1/webhooks', key.secret);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({error: {code: 'unauthorized', message: expect.any(String)}});
  });

  it('expires a key by the emulator clock', async () => {
    const key = await newKey('short', {name: 'short', expires: '30'});
    expect((await get('/v1/org', key.secret)).status).toBe(200);
    await em.control.advanceClock('29d');
    expect((await get('/v1/org', key.secret)).status).toBe(200);
    await em.control.advanceClock('1d');
    expect((await get('/v1/org', key.secret)).status).toBe(401);
    const other = await newKey('lister');
    const list = listOf(ApiKeySchema).parse(await (await get('/v1/api-keys', other.secret)).json());
    expect(list.data.find((k) => k.id === key.id)?.status).toBe('expired');
  });

  it('answers every kind of bad key with the same 401 body', async () => {
    const key = await newKey('revoked-for-oracle');
    await em.control.revokeKey(key.id);
    const bodies = new Set<string>();
    for (const header of [
      undefined,
      'Bearer',
      `Bearer ${key.secret}`,
      `Bearer svc_${'x'.repeat(40)}`,
      'Basic abc',
    ]) {
      const res = await fetch(`${em.apiUrl}/v1/org`, {headers: header ? {authorization: header} : {}});
      expect(res.status).toBe(401);
      bodies.add(await res.text());
    }
    expect(bodies.size).toBe(1);
  });

  it('allows 25 active keys per org; revoked ones do not count, and concurrent creations cannot pass the limit', async () => {
    const org = await em.control.createOrg({name: 'limits'});
    const results = await Promise.allSettled(
      Array.from({length: 30}, (_, i) => em.control.createKey({name: `k${i}`, org_id: org.id})),
    );
    const created = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r) => r.status === 'rejected');
    expect(created).toHaveLength(25);
    expect(refused).toHaveLength(5);
    const reason = (refused[0] as PromiseRejectedResult).reason as EmulatorControlError;
    expect(reason.status).toBe(409);
    expect(reason.message).toMatch(/25 active API keys/);

    const first = (created[0] as PromiseFulfilledResult<{id: string}>).value;
    await em.control.revokeKey(first.id);
    await expect(em.control.createKey({name: 'after-revoke', org_id: org.id})).resolves.toMatchObject({
      name: 'after-revoke',
    });
  });
});

describe('/v1 routes', () => {
  it('refuses key and endpoint creation for every key, with a Deprecation header on POST /v1/webhooks', async () => {
    const key = await newKey('writer');
    const post = await get('/v1/api-keys', key.secret, {method: 'POST', body: '{}'});
    expect(post.status).toBe(403);
    expect((await post.json()).error.code).toBe('forbidden');
    const del = await get(`/v1/api-keys/${key.id}`, key.secret, {method: 'DELETE'});
    expect(del.status).toBe(403);
    const hook = await get('/v1/webhooks', key.secret, {
      method: 'POST',
      body: '{"url":"https://example.com"}',
    });
    expect(hook.status).toBe(403);
    // RFC 9745's form, a date: `@` and Unix seconds (not the draft's `true`).
    expect(hook.headers.get('deprecation')).toBe(`@${WEBHOOK_CREATE_DEPRECATED_AT_SECONDS}`);
    expect(new Date(WEBHOOK_CREATE_DEPRECATED_AT_SECONDS * 1000).toISOString()).toBe(
      '2025-01-01T00:00:00.000Z',
    );
    // Still active: a refused write changes nothing.
    expect((await get('/v1/org', key.secret)).status).toBe(200);
  });

  it('answers unknown routes 404 and wrong methods 405 in the error shape', async () => {
    const key = await newKey('router');
    const missing = await get('/v1/nothing-here', key.secret);
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.code).toBe('not_found');
    const wrong = await get('/v1/org', key.secret, {method: 'PATCH'});
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toContain('GET');
    expect((await wrong.json()).error.code).toBe('method_not_allowed');
    const outside = await fetch(`${em.apiUrl}/nowhere`);
    expect(outside.status).toBe(404);
  });

  it('lists webhook endpoints without their signing secrets', async () => {
    const key = await newKey('hooks');
    const created = await em.control.createWebhook({
      url: 'https://hooks.example.com/svc',
      events: ['sandbox.ready', 'sandbox.error'],
      description: 'ci',
    });
    expect(created.secret).toMatch(/^whsec_/);
    const res = await get('/v1/webhooks', key.secret);
    const text = await res.text();
    expect(text).not.toContain(created.secret);
    const list = listOf(WebhookEndpointSchema).parse(JSON.parse(text));
    expect(list.data[0]).toEqual({
      id: created.id,
      url: 'https://hooks.example.com/svc',
      events: ['sandbox.ready', 'sandbox.error'],
      description: 'ci',
      created_at: created.created_at,
    });
  });

  it('shows rows written with plain SQL on the very next read (hot reads are cached, writes invalidate)', async () => {
    const key = await newKey('cache');
    const before = listOf(WebhookEndpointSchema).parse(await (await get('/v1/webhooks', key.secret)).json());
    const id = newId('webhookEndpoint');
    await em.db.query(
      `INSERT INTO webhook_endpoints (id, org_id, url, events, description, secret_ciphertext, created_at)
       VALUES ($1, $2, 'https://plain.example.com', ARRAY['sandbox.ready'], NULL, 'x', $3)`,
      [id, em.orgId, new Date(em.clock.nowMs() + 60_000)],
    );
    const after = listOf(WebhookEndpointSchema).parse(await (await get('/v1/webhooks', key.secret)).json());
    expect(after.data.map((e) => e.id)).toEqual([id, ...before.data.map((e) => e.id)]);
    await em.db.query('DELETE FROM webhook_endpoints WHERE id = $1', [id]);
    const gone = listOf(WebhookEndpointSchema).parse(await (await get('/v1/webhooks', key.secret)).json());
    expect(gone.data.map((e) => e.id)).not.toContain(id);
  });

  it('lists deliveries of an endpoint (newest first, at most 100, none older than 30 days) and hides other orgs', async () => {
    const key = await newKey('deliveries');
    const endpoint = await em.control.createWebhook({
      url: 'https://hooks.example.com/d',
      events: ['sandbox.ready'],
    });
    const now = em.clock.nowMs();
    // 105 recent deliveries and one from 31 days ago.
    for (let i = 0; i <= 105; i++) {
      const at = i === 105 ? new Date(now - 31 * 86_400_000) : new Date(now - i * 1000);
      const evt = newId('event');
      await em.db.query(
        'INSERT INTO events (id, org_id, type, created_at, body) VALUES ($1, $2, $3, $4, $5)',
        [evt, em.orgId, 'sandbox.ready', at, '{}'],
      );
      await em.db.query(
        `INSERT INTO deliveries (id, org_id, event_id, endpoint_id, event_type, status, attempts, created_at)
         VALUES ($1, $2, $3, $4, 'sandbox.ready', 'succeeded', 1, $5)`,
        [`dlv_${String(i).padStart(24, '0')}`, em.orgId, evt, endpoint.id, at],
      );
    }
    const res = await get(`/v1/webhooks/${endpoint.id}/deliveries`, key.secret);
    expect(res.status).toBe(200);
    const list = listOf(DeliverySchema).parse(await res.json());
    expect(list.data).toHaveLength(100);
    expect(list.data[0]?.id).toBe(`dlv_${'0'.repeat(24)}`);
    const times = list.data.map((d) => Date.parse(d.created_at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(list.data[0]?.attempts).toBe(1);

    const other = await em.control.createOrg({name: 'other'});
    const otherKey = await em.control.createKey({name: 'other', org_id: other.id});
    const hidden = await get(`/v1/webhooks/${endpoint.id}/deliveries`, otherKey.secret);
    expect(hidden.status).toBe(404);
    const unknown = await get(`/v1/webhooks/${newId('webhookEndpoint')}/deliveries`, key.secret);
    expect(unknown.status).toBe(404);
    expect(await hidden.text()).toBe(await unknown.text());
  });
});

describe('control surface', () => {
  it('accepts only the admin token, never an API key', async () => {
    const key = await newKey('not-admin');
    const asKey = new EmulatorControl({url: em.apiUrl, adminToken: key.secret});
    await expect(asKey.health()).rejects.toMatchObject({status: 401});
    await expect(em.control.health()).resolves.toEqual({ok: true, org_id: em.orgId});
  });

  it('validates endpoints: events, description, URL policy and the limit of 10 per org', async () => {
    const org = await em.control.createOrg({name: 'endpoint-limits'});
    const bad = [
      {url: 'http://hooks.example.com/x', events: ['sandbox.ready']},
      {url: 'https://user:pw@hooks.example.com/x', events: ['sandbox.ready']},
      {url: 'https://hooks.example.com/x#frag', events: ['sandbox.ready']},
      {url: 'https://127.0.0.1/x', events: ['sandbox.ready']},
      {url: 'https://localhost/x', events: ['sandbox.ready']},
      {url: `https://hooks.example.com/${'a'.repeat(2048)}`, events: ['sandbox.ready']},
      {url: 'https://hooks.example.com/x', events: []},
      {url: 'https://hooks.example.com/x', events: ['sandbox.ready', 'sandbox.ready']},
      {url: 'https://hooks.example.com/x', events: ['sandbox.nope']},
      {url: 'https://hooks.example.com/x', events: ['sandbox.ready'], description: 'd'.repeat(201)},
    ];
    for (const input of bad) {
      const err = await em.control
        .createWebhook({...input, org_id: org.id})
        .catch((e: EmulatorControlError) => e);
      expect(err, JSON.stringify(input).slice(0, 80)).toBeInstanceOf(EmulatorControlError);
      expect((err as EmulatorControlError).status).toBe(400);
      expect((err as EmulatorControlError).code).toBe('invalid_request');
    }
    for (let i = 0; i < 10; i++) {
      await em.control.createWebhook({
        url: `https://hooks.example.com/${i}`,
        events: ['sandbox.ready'],
        org_id: org.id,
      });
    }
    await expect(
      em.control.createWebhook({
        url: 'https://hooks.example.com/11',
        events: ['sandbox.ready'],
        org_id: org.id,
      }),
    ).rejects.toMatchObject({status: 409});
  });

  it('deletes endpoints, and 404s for unknown ones', async () => {
    const w = await em.control.createWebhook({
      url: 'https://hooks.example.com/del',
      events: ['sandbox.stopped'],
    });
    await em.control.deleteWebhook(w.id);
    await expect(em.control.deleteWebhook(w.id)).rejects.toMatchObject({status: 404});
  });

  it('moves a manual clock forward or to a set time', async () => {
    const before = await em.control.clock();
    expect(before.mode).toBe('manual');
    const after = await em.control.advanceClock('90s');
    expect(Date.parse(after.now) - Date.parse(before.now)).toBe(90_000);
    const set = await em.control.setClock('2031-01-01T00:00:00Z');
    expect(set.now).toBe('2031-01-01T00:00:00.000Z');
    await expect(em.control.advanceClock('soon')).rejects.toMatchObject({status: 400});
    await expect(em.control.setClock('tomorrow')).rejects.toMatchObject({status: 400});
  });
});
