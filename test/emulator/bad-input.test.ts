// Hostile and malformed requests get clear 4xx answers in the error shape, never a crash or a 5xx.
import {request as httpRequest} from 'node:http';
import fc from 'fast-check';
import {Agent} from 'undici';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {AuthFailureLimiter} from '../../src/emulator/auth/rate-limiter.js';
import type {ManualClock} from '../../src/emulator/clock.js';
import {createApp, type RunningEmulator, startEmulator} from '../../src/emulator/index.js';
import {createVault} from '../../src/emulator/vault.js';
import {rawGet} from '../helpers/raw-get.js';

let em: RunningEmulator;
let secret: string;

beforeAll(async () => {
  em = await startEmulator({
    port: 0,
    inMemory: true,
    clock: 'manual',
    rateLimit: {maxFailures: 5, windowMs: 60_000},
    lookup: async () => [{address: '93.184.215.14', family: 4}],
  });
  secret = (await em.control.createKey({name: 'bad-input'})).secret;
});
afterAll(async () => {
  await em?.stop();
});

/** An in-process app over the same database whose rate limit never trips, so every request reaches the routes. */
function unlimitedApp() {
  return createApp({
    ...em.context,
    limiter: new AuthFailureLimiter(em.clock, {maxFailures: Number.MAX_SAFE_INTEGER}),
    controlLimiter: new AuthFailureLimiter(em.clock, {maxFailures: Number.MAX_SAFE_INTEGER}),
  });
}

const from = (address: string) => ({incoming: {socket: {remoteAddress: address}}});

async function expectErrorShape(res: Response, status: number, code?: string) {
  expect(res.status).toBe(status);
  const body = (await res.json()) as {error: {code: string; message: string}};
  expect(typeof body.error.message).toBe('string');
  if (code) expect(body.error.code).toBe(code);
}

describe('odd Authorization headers', () => {
  const app = () => unlimitedApp();
  it.each([
    ['empty', ''],
    ['the scheme alone', 'Bearer'],
    ['the scheme and a space', 'Bearer '],
    ['another scheme', `Basic ${Buffer.from('a:b').toString('base64')}`],
    ['a key without the scheme', 'svc_0123456789012345678901234567890123456789'],
    ['100 KB', `Bearer ${'a'.repeat(100_000)}`],
    ['a wrong key of the right shape', `Bearer svc_${'A'.repeat(40)}`],
    ['a key one character short', `Bearer svc_${'A'.repeat(39)}`],
    ['two keys', `Bearer svc_${'A'.repeat(40)} svc_${'B'.repeat(40)}`],
  ])('answers %s with 401', async (_name, header) => {
    const res = await app().request('/v1/org', {headers: {authorization: header}}, from('10.9.9.9'));
    await expectErrorShape(res, 401, 'unauthorized');
  });

  it('accepts the scheme in any case and extra spaces around the key, as HTTP allows', async () => {
    for (const header of [`bearer ${secret}`, `BEARER  ${secret}`, `Bearer ${secret} `]) {
      const res = await app().request('/v1/org', {headers: {authorization: header}}, from('10.9.9.9'));
      expect(res.status, header).toBe(200);
    }
  });

  it('answers non-ASCII headers on the real server without crashing it', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const url = new URL('/v1/org', em.apiUrl);
      const req = httpRequest(url, {
        headers: {authorization: Buffer.from('Bearer svc_ключ😀', 'utf8').toString('latin1')},
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(401);
  });
});

describe('hostile ids and paths', () => {
  const hostile = [
    '..%2F..%2Fetc%2Fpasswd',
    '../../etc/passwd',
    `we_${'a'.repeat(5000)}`,
    "we_' OR '1'='1",
    'we_%00',
    encodeURIComponent('we_ключ'),
    encodeURIComponent('😀'),
    '%E0%A4%A',
    '%',
  ];
  it.each(hostile)('answers /v1/webhooks/%s/deliveries with a 4xx', async (id) => {
    const res = await unlimitedApp().request(`/v1/webhooks/${id}/deliveries`, {
      headers: {authorization: `Bearer ${secret}`},
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
  });

  it.each(hostile)('answers control routes for id %s with a 4xx', async (id) => {
    const headers = {authorization: `Bearer ${em.adminToken}`};
    for (const [method, path] of [
      ['POST', `/_emulator/keys/${id}/revoke`],
      ['DELETE', `/_emulator/webhooks/${id}`],
    ] as const) {
      const res = await unlimitedApp().request(path, {method, headers});
      expect(res.status, `${method} ${path}`).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
    }
  });
});

describe('bad bodies on the control routes', () => {
  const admin = {authorization: `Bearer ${'x'}`};
  const post = (path: string, body: string | Uint8Array, contentType = 'application/json') =>
    unlimitedApp().request(path, {
      method: 'POST',
      headers: {authorization: `Bearer ${em.adminToken}`, 'content-type': contentType},
      body,
    });

  it.each([
    ['invalid JSON', '{"name": '],
    ['a JSON array', '[]'],
    ['a JSON string', '"key"'],
    ['null', 'null'],
    ['a number for name', '{"name": 5}'],
    ['an empty name', '{"name": ""}'],
    ['an unknown expiry', '{"name": "a", "expires": "7"}'],
    ['an unknown field', '{"name": "a", "admin": true}'],
    ['a non-existent org', '{"name": "a", "org_id": "org_000000000000000000000000"}'],
    ['a hostile org id', `{"name": "a", "org_id": "../${'x'.repeat(300)}"}`],
    ['an empty body', ''],
  ])('refuses %s when creating a key', async (_name, body) => {
    const res = await post('/_emulator/keys', body);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    const json = (await res.json()) as {error: {code: string; message: string}};
    expect(json.error.message.length).toBeGreaterThan(0);
  });

  it.each([
    ['events as a string', '{"url": "https://hooks.example.com", "events": "sandbox.ready"}'],
    ['a number as url', '{"url": 42, "events": ["sandbox.ready"]}'],
    ['nested junk', '{"url": {"$gt": ""}, "events": [["sandbox.ready"]]}'],
  ])('refuses %s when creating an endpoint', async (_name, body) => {
    await expectErrorShape(await post('/_emulator/webhooks', body), 400, 'invalid_request');
  });

  it("names every problem of a relay's report at once, each field once", async () => {
    const relay = await em.control.registerRelay({name: 'reports'});
    const res = await post(
      `/_emulator/relay/${relay.endpoint_id}/results`,
      JSON.stringify({
        delivery_id: 7,
        attempt: 0,
        status_code: 99_999,
        error: null,
        duration_ms: -5,
        body: '',
        extra: true,
      }),
    );
    expect(res.status).toBe(400);
    const {error} = (await res.json()) as {error: {code: string; message: string}};
    expect(error.code).toBe('invalid_request');
    expect(error.message.split('; ').sort()).toEqual([
      'attempt must be from 1 to 100',
      'delivery_id must be a string',
      'duration_ms must be from 0 to 3600000',
      'status_code must be an HTTP status from 100 to 999',
      'unknown field "extra"',
    ]);
  });

  it('refuses bodies over 64 KB with 413 in the error shape', async () => {
    const body = JSON.stringify({name: 'x'.repeat(70 * 1024)});
    await expectErrorShape(await post('/_emulator/keys', body), 413, 'payload_too_large');
    // Over the real server too, where the body streams in.
    const res = await fetch(`${em.apiUrl}/_emulator/keys`, {
      method: 'POST',
      headers: {authorization: `Bearer ${em.adminToken}`, 'content-type': 'application/json'},
      body,
    });
    await expectErrorShape(res, 413, 'payload_too_large');
  });

  it('does not let a wrong admin token in', async () => {
    const res = await unlimitedApp().request('/_emulator/health', {headers: admin});
    await expectErrorShape(res, 401, 'unauthorized');
  });
});

describe('bodies over the real server, read from the socket', () => {
  /** A POST of `parts` written one after another, with its length declared or (`chunked`) not. */
  function postInParts(path: string, parts: (string | Buffer)[], chunked = false) {
    const bytes = parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : p));
    const length = bytes.reduce((n, b) => n + b.length, 0);
    return new Promise<{status: number; body: {error?: {code: string; message: string}; id?: string}}>(
      (resolve, reject) => {
        const req = httpRequest(
          `${em.apiUrl}${path}`,
          {
            method: 'POST',
            headers: {
              authorization: `Bearer ${em.adminToken}`,
              'content-type': 'application/json',
              ...(chunked ? {} : {'content-length': String(length)}),
            },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () =>
              resolve({
                status: res.statusCode ?? 0,
                body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
              }),
            );
          },
        );
        req.on('error', reject);
        for (const b of bytes) req.write(b);
        req.end();
      },
    );
  }

  it.each([
    ['invalid JSON', '{"name": '],
    ['a JSON array', '[]'],
    ['bytes that are not UTF-8', Buffer.from([0x7b, 0xff, 0xfe, 0x7d])],
    ['an unknown field', '{"name": "a", "admin": true}'],
    ['an empty body', ''],
  ])('refuses %s in the error shape', async (_name, body) => {
    const res = await postInParts('/_emulator/keys', [body]);
    expect(res.status).toBe(400);
    expect(res.body.error?.code).toBe('invalid_request');
  });

  it('reads a body written in many writes, with its length declared or sent chunked', async () => {
    const name = `pieces ${'x'.repeat(20_000)}`.slice(0, 100);
    const json = JSON.stringify({name});
    const pieces = json.match(/.{1,7}/g) as string[];
    const declared = await postInParts('/_emulator/keys', pieces);
    expect(declared.status).toBe(201);
    const chunked = await postInParts('/_emulator/keys', pieces, true);
    expect(chunked.status).toBe(201);
    const {rows} = await em.db.query('SELECT name FROM api_keys WHERE name = $1', [name]);
    expect(rows).toHaveLength(2);
  });

  it('reads a body that starts with a UTF-8 byte order mark, as fetch does', async () => {
    const res = await postInParts('/_emulator/keys', [Buffer.from([0xef, 0xbb, 0xbf]), '{"name": "bom"}']);
    expect(res.status).toBe(201);
  });

  it("gives a control token of one org the body both for its scope and for the route's own checks", async () => {
    const org = await em.control.createOrg({name: 'scoped bodies'});
    const token = await em.control.createControlToken({org_id: org.id});
    const scoped = (body: string) =>
      fetch(`${em.apiUrl}/_emulator/keys`, {
        method: 'POST',
        headers: {authorization: `Bearer ${token.token}`, 'content-type': 'application/json'},
        body,
      });
    expect((await scoped(JSON.stringify({name: 'own', org_id: org.id}))).status).toBe(201);
    await expectErrorShape(
      await scoped(JSON.stringify({name: 'other', org_id: em.context.current.orgId})),
      403,
    );
    await expectErrorShape(await scoped(JSON.stringify({name: 'own', org_id: org.id, admin: true})), 400);
  });
});

describe('rate limiting of failed authentication', () => {
  function getFrom(localAddress: string, path: string, authorization?: string) {
    return rawGet(new URL(path, em.apiUrl), {localAddress, authorization});
  }

  it('answers 429 with Retry-After after repeated failures from one address, the whole loopback range counting as one', async () => {
    const wrong = `Bearer svc_${'Z'.repeat(40)}`;
    // Every loopback address is one to the limiter: start from what the tests before left behind.
    await em.control.resetLimiter();
    // Successes from the same address do not count.
    for (let i = 0; i < 10; i++)
      expect((await getFrom('127.0.0.3', '/v1/org', `Bearer ${secret}`)).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await getFrom('127.0.0.3', '/v1/org', wrong)).status).toBe(401);
    const limited = await getFrom('127.0.0.3', '/v1/org', wrong);
    expect(limited.status).toBe(429);
    expect(JSON.parse(limited.body).error.code).toBe('rate_limited');
    expect(Number(limited.retryAfter)).toBeGreaterThan(0);
    // A good key from the limited address waits too: otherwise guessing could go on between good requests.
    expect((await getFrom('127.0.0.3', '/v1/org', `Bearer ${secret}`)).status).toBe(429);
    // Another loopback address is the same machine: moving within 127.0.0.0/8 does not get round the limit.
    expect((await getFrom('127.0.0.4', '/v1/org', `Bearer ${secret}`)).status).toBe(429);
    // The window follows the emulator clock.
    (em.clock as ManualClock).advance(61_000);
    expect((await getFrom('127.0.0.3', '/v1/org', `Bearer ${secret}`)).status).toBe(200);
  });
});

describe('a deployment without a vault key', () => {
  it('answers the deliveries list with 503 vault_unavailable', async () => {
    const endpoint = await em.control.createWebhook({
      url: 'https://hooks.example.com/v',
      events: ['sandbox.ready'],
    });
    const app = createApp({...em.context, vault: createVault(null)});
    const res = await app.request(`/v1/webhooks/${endpoint.id}/deliveries`, {
      headers: {authorization: `Bearer ${secret}`},
    });
    await expectErrorShape(res, 503, 'vault_unavailable');
    expect(await app.request('/v1/webhooks', {headers: {authorization: `Bearer ${secret}`}})).toHaveProperty(
      'status',
      200,
    );
  });
});

describe('fuzz', () => {
  it('answers 10,000 random requests without a 5xx, and the real server still answers afterwards', async () => {
    const app = unlimitedApp();
    const seen = new Map<number, number>();
    const segment = fc.oneof(
      fc.constantFrom(
        'v1',
        '_emulator',
        'org',
        'api-keys',
        'webhooks',
        'deliveries',
        'keys',
        'revoke',
        'clock',
        'health',
        'orgs',
      ),
      fc.constantFrom(
        'we_AAAAAAAAAAAAAAAAAAAAAAAA',
        'key_AAAAAAAAAAAAAAAAAAAAAAAA',
        '..',
        '%2e%2e',
        '%00',
        '%ZZ',
      ),
      fc.string({maxLength: 30}).map(encodeURIComponent),
    );
    const auth = fc.oneof(
      fc.constant(undefined),
      fc.constant(`Bearer ${secret}`),
      fc.constant(`Bearer ${em.adminToken}`),
      fc.string({maxLength: 80}).map((s) => s.replace(/[^\x20-\x7e]/g, '')),
    );
    const body = fc.oneof(
      fc.constant(undefined),
      fc.json(),
      fc.string({maxLength: 200}),
      fc
        .record(
          {
            name: fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
            url: fc.oneof(fc.webUrl(), fc.string()),
            events: fc.oneof(fc.array(fc.constantFrom('sandbox.ready', 'sandbox.error', 'x')), fc.string()),
            expires: fc.constantFrom('30', '90', 'never', 7, null),
            advance: fc.constantFrom('1s', '10m', 'x', ''),
          },
          {requiredKeys: []},
        )
        .map((o) => JSON.stringify(o)),
    );
    const requestArb = fc.record({
      method: fc.constantFrom('GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'HEAD', 'OPTIONS'),
      path: fc.oneof(
        // Mostly real routes with fuzzed ids, so requests get past routing; sometimes anything at all.
        fc
          .tuple(
            fc.constantFrom(
              '/v1/org',
              '/v1/api-keys',
              '/v1/api-keys/:id',
              '/v1/webhooks',
              '/v1/webhooks/:id/deliveries',
              '/_emulator/health',
              '/_emulator/orgs',
              '/_emulator/keys',
              '/_emulator/keys/:id/revoke',
              '/_emulator/webhooks',
              '/_emulator/webhooks/:id',
              '/_emulator/clock',
            ),
            segment,
          )
          .map(([route, id]) => route.replace(':id', id || 'x')),
        fc.array(segment, {minLength: 0, maxLength: 5}).map((s) => `/${s.join('/')}`),
      ),
      auth,
      body,
    });
    await fc.assert(
      fc.asyncProperty(requestArb, async (r) => {
        const headers: Record<string, string> = {'content-type': 'application/json'};
        if (r.auth !== undefined) headers.authorization = r.auth;
        const hasBody = r.body !== undefined && r.method !== 'GET' && r.method !== 'HEAD';
        let res: Response;
        try {
          res = await app.request(
            r.path,
            {method: r.method, headers, body: hasBody ? r.body : undefined},
            from('10.1.1.1'),
          );
        } catch (err) {
          // A path the URL parser itself rejects never reaches a server.
          if (err instanceof TypeError) return true;
          throw err;
        }
        seen.set(res.status, (seen.get(res.status) ?? 0) + 1);
        return res.status < 500;
      }),
      {numRuns: 10_000, seed: 20261122},
    );
    expect([...seen.values()].reduce((a, b) => a + b, 0)).toBeGreaterThan(9_000);
    // The requests reached past authentication and routing, not just the front door.
    for (const status of [200, 400, 401, 404, 405])
      expect(seen.get(status), `status ${status}`).toBeGreaterThan(0);
    // On a new connection: an idle keep-alive one from before the fuzz may be closed by the server meanwhile. The
    // tests before this one spent this machine's failed authentications (all of loopback is one address). The
    // control client's own kept-alive connection may be the closed one: a second try goes on a new one.
    await em.control.resetLimiter().catch(() => em.control.resetLimiter());
    const fresh = new Agent();
    try {
      const alive = await fetch(`${em.apiUrl}/v1/org`, {
        headers: {authorization: `Bearer ${secret}`},
        dispatcher: fresh,
      } as RequestInit);
      expect(alive.status).toBe(200);
    } finally {
      await fresh.close();
    }
  }, 240_000);
});
