// Every route of a running emulator (/v1, the control surface, the delivery engine's and the sandboxes'
// routes) against generated methods, paths, headers and bodies over real HTTP: never a 5xx, every error in
// the JSON error shape, and the server still answers afterwards.
import fc from 'fast-check';
import {Agent, request} from 'undici';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js';

let em: RunningEmulator;
let secret: string;
const ids: string[] = [];
const agent = new Agent({connections: 8});
/** Generated requests; every one is either answered by the emulator or refused by the client before sending. */
const RUNS = 3000;

beforeAll(async () => {
  em = await startEmulator({
    port: 0,
    inMemory: true,
    clock: 'manual',
    clockStart: new Date('2030-01-01T00:00:00Z'),
    // Limits would answer 429 before most requests reach a route.
    rateLimit: {maxFailures: Number.MAX_SAFE_INTEGER},
    lookup: async () => [{address: '93.184.215.14', family: 4}],
    log: () => undefined,
  });
  const key = await em.control.createKey({name: 'fuzz'});
  secret = key.secret;
  const hook = await em.control.createWebhook({
    url: 'https://hooks.example.com/f',
    events: ['sandbox.ready'],
  });
  const move = await em.control.trigger({type: 'sandbox.ready'});
  const relay = await em.control.registerRelay({name: 'fuzz'});
  // Another key's id goes into paths: revoking the one the requests use would lock /v1 for the rest.
  const other = await em.control.createKey({name: 'fuzz-target'});
  ids.push(other.id, hook.id, move.sandbox.id, relay.endpoint_id, em.orgId);
});
afterAll(async () => {
  await agent.close();
  await em?.stop();
});

const ROUTES = [
  'GET /v1/org',
  'GET /v1/api-keys',
  'POST /v1/api-keys',
  'DELETE /v1/api-keys/:id',
  'GET /v1/webhooks',
  'POST /v1/webhooks',
  'GET /v1/webhooks/:id/deliveries',
  'GET /account',
  'GET /_emulator/health',
  'POST /_emulator/orgs',
  'POST /_emulator/keys',
  'POST /_emulator/keys/:id/revoke',
  'POST /_emulator/webhooks',
  'DELETE /_emulator/webhooks/:id',
  'GET /_emulator/clock',
  'POST /_emulator/clock',
  'POST /_emulator/limiter/reset',
  'POST /_emulator/trigger',
  'GET /_emulator/sandboxes',
  'POST /_emulator/sandboxes',
  'GET /_emulator/sandboxes/:id',
  'POST /_emulator/sandboxes/:id/:action',
  'POST /_emulator/sandboxes/:id/links',
  'GET /_emulator/links',
  'GET /_links/:token/',
  'POST /_links/:token/:path',
  'POST /_emulator/relay',
  'GET /_emulator/relay/:id/stream',
  'POST /_emulator/relay/:id/results',
] as const;

/** Text of every kind: control characters and NUL, lone surrogates, long runs, numbers in disguise. */
const text = fc.oneof(
  fc.string({unit: 'binary', maxLength: 40}),
  fc.string({
    unit: fc.constantFrom(
      '\u0000',
      '\u0001',
      '\u001f',
      '\u007f',
      '\u0085',
      '\u2028',
      'a',
      'é',
      '\ud800',
      '😀',
      ' ',
    ),
    maxLength: 12,
  }),
  fc.string({maxLength: 20}),
  fc.constantFrom('', ' ', '\u0000', 'a\u0000b', '\u001b[31m', '\ud800', 'x'.repeat(5000), '-1', '1e400'),
);
const durationOrTime = fc.oneof(
  fc.constantFrom(
    '1s',
    '90s',
    '10m',
    '31d',
    '100000000d',
    '9007199254740993ms',
    '0s',
    '-1s',
    '1h30m',
    '0000-01-01T00:00:00Z',
    '9999-12-31T23:59:59Z',
    '1969-12-31T23:59:59Z',
    '2030-02-01T00:00:00Z',
    '+275760-09-13T00:00:00Z',
  ),
  fc.nat().map((n) => `${n}d`),
  text,
);
const valueArb = () =>
  fc.oneof(
    text,
    durationOrTime,
    fc.integer(),
    fc.double(),
    fc.constantFrom(null, true, [], {}, 1e308, -0, Number.MAX_SAFE_INTEGER + 2),
    fc.constantFrom(
      'sandbox.ready',
      'sandbox.error',
      'sandbox.stopped',
      'sandbox.expired',
      '30',
      '365',
      'never',
      'port',
      'desktop',
      'browser',
    ),
    fc.array(fc.oneof(fc.constantFrom('sandbox.ready', 'sandbox.error'), text), {maxLength: 4}),
    fc.constantFrom(...ids),
    fc.webUrl(),
  );
const FIELDS = [
  'name',
  'url',
  'events',
  'description',
  'expires',
  'created_by',
  'org_id',
  'advance',
  'set',
  'type',
  'sandbox_id',
  'last_error',
  'expires_in',
  'delivery_id',
  'attempt',
  'status_code',
  'error',
  'duration_ms',
  'body',
  'kind',
  'key_id',
  'port',
] as const;

const ROUTE_FIELDS: Record<string, string[]> = {
  'POST /_emulator/orgs': ['name'],
  'POST /_emulator/keys': ['name', 'expires', 'created_by', 'org_id'],
  'POST /_emulator/webhooks': ['url', 'events', 'description', 'org_id'],
  'POST /_emulator/clock': ['advance'],
  'POST /_emulator/trigger': ['type', 'sandbox_id', 'last_error', 'org_id'],
  'POST /_emulator/sandboxes': ['name', 'expires_in', 'org_id'],
  'POST /_emulator/sandboxes/:id/:action': ['last_error'],
  'POST /_emulator/sandboxes/:id/links': ['kind', 'key_id', 'port'],
  'POST /_emulator/relay': ['name', 'events', 'org_id'],
  'POST /_emulator/relay/:id/results': [
    'delivery_id',
    'attempt',
    'status_code',
    'error',
    'duration_ms',
    'body',
  ],
};

describe('fuzz over every route', () => {
  it('answers generated requests to every route without a 5xx, always in the error shape', async () => {
    const segment = fc.oneof(
      fc.constantFrom(...ids),
      fc.constantFrom(
        'we_AAAAAAAAAAAAAAAAAAAAAAAA',
        'sbx_AAAAAAAAAAAAAAAAAAAAAAAA',
        'stop',
        'resume',
        'fork',
        'crash',
      ),
      fc.constantFrom('..', '%2e%2e', '%00', '%ZZ', '%', 'x'.repeat(3000)),
      fc.string({unit: 'binary', maxLength: 20}).map(encodeURIComponent),
    );
    const anyBody = fc.oneof(
      fc.constant(undefined),
      fc.dictionary(fc.constantFrom(...FIELDS), valueArb(), {maxKeys: 6}).map((o) => JSON.stringify(o)),
      fc.json(),
      text,
    );
    // Bodies with only the fields a route reads, so most get past its schema to the rules and the database.
    const routeBody = (route: string) => {
      const fields = ROUTE_FIELDS[route];
      if (!fields) return anyBody;
      return fc.oneof(
        {
          weight: 3,
          arbitrary: fc
            .record(Object.fromEntries(fields.map((f) => [f, valueArb()])), {requiredKeys: []})
            .map((o) => JSON.stringify(o)),
        },
        {weight: 1, arbitrary: anyBody},
      );
    };
    const header = fc.tuple(
      fc.constantFrom(
        'accept',
        'content-type',
        'x-forwarded-for',
        'origin',
        'cookie',
        'user-agent',
        'if-none-match',
        'x-request-id',
        'range',
        'accept-encoding',
      ),
      fc.string({maxLength: 60}),
    );
    // Mostly the credential the route takes, so requests get past authentication.
    const authFor = (route: string) =>
      fc.oneof(
        {weight: 6, arbitrary: fc.constant(`Bearer ${route.includes(' /v1/') ? secret : em.adminToken}`)},
        {weight: 1, arbitrary: fc.constant(`Bearer ${route.includes(' /v1/') ? em.adminToken : secret}`)},
        {weight: 1, arbitrary: fc.constant(undefined)},
        {weight: 1, arbitrary: fc.string({maxLength: 60})},
      );
    const requestArb = fc.constantFrom(...ROUTES).chain((route) =>
      fc.record({
        route: fc.constant(route),
        body: routeBody(route),
        otherMethod: fc.oneof(
          {weight: 9, arbitrary: fc.constant(undefined)},
          {weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'OPTIONS')},
        ),
        segments: fc.array(segment, {minLength: 2, maxLength: 2}),
        query: fc.option(
          fc
            .string({unit: 'binary', maxLength: 30})
            .map((q) => `?${encodeURIComponent(q)}=${encodeURIComponent(q)}`),
        ),
        auth: authFor(route),
        headers: fc.array(header, {maxLength: 4}),
      }),
    );

    const statuses = new Map<number, number>();
    const failures: string[] = [];
    let notSent = 0;
    await fc.assert(
      fc.asyncProperty(requestArb, async (r) => {
        const [routeMethod, template] = r.route.split(' ') as [string, string];
        const method = r.otherMethod ?? routeMethod;
        let n = 0;
        const path = template.replace(/:[a-z]+/g, () => r.segments[n++ % 2] as string) + (r.query ?? '');
        const headers: Record<string, string> = {};
        for (const [name, v] of r.headers) headers[name] = v;
        if (r.auth !== undefined) headers.authorization = r.auth;
        if (r.body !== undefined && !('content-type' in headers))
          headers['content-type'] = 'application/json';
        const hasBody = r.body !== undefined && method !== 'GET';
        let res: Awaited<ReturnType<typeof request>>;
        try {
          res = await request(new URL(path, em.apiUrl), {
            method: method as 'GET',
            headers,
            body: hasBody ? r.body : undefined,
            dispatcher: agent,
          });
        } catch (err) {
          // Header values or paths the client itself refuses to send never reach a server.
          if ((err as {code?: string}).code === 'UND_ERR_INVALID_ARG') {
            notSent++;
            return true;
          }
          throw err;
        }
        statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
        if (res.statusCode < 400 && template.endsWith('/stream')) {
          // The relay stream never ends by itself; its status is all this needs.
          res.body.on('error', () => undefined);
          res.body.destroy();
          return true;
        }
        const text = await res.body.text();
        if (res.statusCode >= 500) failures.push(`${method} ${path} ${text.slice(0, 200)}`);
        if (res.statusCode >= 400 && method !== 'HEAD') {
          const parsed = JSON.parse(text) as {error?: {code?: unknown; message?: unknown}};
          expect(typeof parsed.error?.code, `${method} ${path}`).toBe('string');
          expect(typeof parsed.error?.message).toBe('string');
        }
        return res.statusCode < 500;
      }),
      {numRuns: RUNS, seed: 20261123, endOnFailure: true},
    );
    expect(failures).toEqual([]);
    // Nearly every generated request reached the server and was answered: a generator that drifted into
    // requests the client refuses to send would otherwise pass while testing nothing.
    const answered = [...statuses.values()].reduce((a, b) => a + b, 0);
    console.log(`answered ${answered} of ${RUNS}; not sent: ${notSent}`);
    expect(answered + notSent).toBe(RUNS);
    expect(answered).toBeGreaterThanOrEqual(RUNS * 0.9);
    // The requests reached the routes, not only the front door.
    for (const status of [200, 201, 400, 401, 404])
      expect(statuses.get(status), `status ${status}`).toBeGreaterThan(0);
    console.log(`statuses: ${JSON.stringify(Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])))}`);
    const fresh = await em.control.createKey({name: 'after-fuzz'});
    const alive = await fetch(`${em.apiUrl}/v1/org`, {headers: {authorization: `Bearer ${fresh.secret}`}});
    expect(alive.status).toBe(200);
  }, 240_000);
});
