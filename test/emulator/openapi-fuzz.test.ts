// A Schemathesis-style run over the emulator's own OpenAPI document, as docs/emulator.md ("Fuzzing the emulator")
// tells people to run one: the document is fetched from /_emulator/openapi.json, every operation in it is driven
// with generated inputs, valid and invalid (credentials of every kind, path ids that exist, belong to another
// org or have no shape at all, bodies of every media type), and every answer must be one the document declares:
// its status among the operation's responses, its headers and body valid for that response (openapi-backend with
// Ajv, the contract suite's checker). Never a 5xx, and never a 429: the emulator runs with its failed-
// authentication limit off, the setting the docs give for fuzzers, which says so at start and in its health.
import fc from 'fast-check';
import {Agent, request} from 'undici';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {ERROR_STATUS, type ErrorCode, V1_ERROR_CODES} from '../../src/definitions.js';
import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js';
import {RATE_LIMIT_OFF_WARNING} from '../../src/emulator/start/context.js';
import type {OpenApiDocument} from '../../src/schemas/openapi.js';
import {openApiChecker} from '../helpers/openapi-check.js';
import type {Exchange} from '../helpers/recording-proxy.js';

let em: RunningEmulator;
let doc: OpenApiDocument;
let check: (exchange: Exchange) => string[];
const logLines: string[] = [];
const agent = new Agent({connections: 8});
let secret: string;
let revokedSecret: string;
let keyIds: string[] = [];
let ownEndpoint: string;
let otherOrgEndpoint: string;
/** Generated requests per operation: a few hundred in all, in a few seconds. */
const RUNS_PER_OPERATION = 50;

beforeAll(async () => {
  em = await startEmulator({
    port: 0,
    inMemory: true,
    clock: 'manual',
    clockStart: new Date('2030-01-01T00:00:00Z'),
    rateLimit: false,
    lookup: async () => [{address: '93.184.215.14', family: 4}],
    log: (line) => logLines.push(line),
  });
  const key = await em.control.createKey({name: 'fuzz'});
  secret = key.secret;
  const revoked = await em.control.createKey({name: 'fuzz-revoked'});
  await em.control.revokeKey(revoked.id);
  revokedSecret = revoked.secret;
  keyIds = [key.id, revoked.id];
  ownEndpoint = (
    await em.control.createWebhook({url: 'https://hooks.example.com/f', events: ['sandbox.ready']})
  ).id;
  await em.control.trigger({type: 'sandbox.ready'});
  const other = await em.control.createOrg({name: 'Someone else'});
  otherOrgEndpoint = (
    await em.control.createWebhook({
      url: 'https://hooks.example.com/other',
      events: ['sandbox.ready'],
      org_id: other.id,
    })
  ).id;
  const served = await fetch(`${em.apiUrl}/_emulator/openapi.json`, {
    headers: {authorization: `Bearer ${em.adminToken}`},
  });
  doc = (await served.json()) as OpenApiDocument;
  check = await openApiChecker(doc);
});
afterAll(async () => {
  await agent.close();
  await em?.stop();
});

interface Operation {
  method: string;
  /** As the document writes it: `/v1/webhooks/{webhook}/deliveries`. */
  path: string;
  bodyTypes: string[];
}

function operations(): Operation[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item as Record<string, {requestBody?: {content: Record<string, unknown>}}>)
      .filter(([method]) => method !== 'parameters')
      .map(([method, op]) => ({
        method: method.toUpperCase(),
        path,
        bodyTypes: Object.keys(op.requestBody?.content ?? {}),
      })),
  );
}

/** Header values HTTP can carry (visible ASCII, spaces and tabs), of every other kind. */
const headerText = fc.string({maxLength: 60}).filter((s) => /^[\t\x20-\x7e]*$/.test(s));

const credential = () =>
  fc.oneof(
    {weight: 4, arbitrary: fc.constant(`Bearer ${secret}`)},
    {weight: 1, arbitrary: fc.constant(`Bearer ${revokedSecret}`)},
    {weight: 1, arbitrary: fc.constant(`Bearer ${em.adminToken}`)},
    {weight: 1, arbitrary: fc.stringMatching(/^svc_[0-9A-Za-z]{40}$/).map((s) => `Bearer ${s}`)},
    {weight: 1, arbitrary: fc.constant(`Basic ${Buffer.from('svc:x').toString('base64')}`)},
    {weight: 1, arbitrary: headerText},
    {weight: 1, arbitrary: fc.constant(undefined)},
  );

/** A path parameter: an id that exists (or belongs to another org), one of the right shape, or anything. */
const parameter = (name: string) =>
  fc.oneof(
    fc.constantFrom(...(name === 'key' ? keyIds : [ownEndpoint, otherOrgEndpoint])),
    fc.stringMatching(name === 'key' ? /^key_[0-9A-Za-z]{24}$/ : /^we_[0-9A-Za-z]{24}$/),
    fc.string({unit: 'binary', maxLength: 30}).map(encodeURIComponent),
    fc.constantFrom('', '%00', '..', 'x'.repeat(2000)),
  );

/** A body of one of the types the operation declares, of another type, or none. */
const body = (types: string[]) =>
  fc.oneof(
    fc.constant(undefined),
    fc.record({
      type: fc.constantFrom(
        ...types.map((t) => (t === '*/*' ? 'text/plain' : t)),
        'application/x-www-form-urlencoded',
      ),
      text: fc.oneof(fc.json(), fc.string({maxLength: 200}), fc.constant('{"url":"https://example.com"}')),
    }),
  );

describe('a Schemathesis-style run over /_emulator/openapi.json', () => {
  it('drives every operation of the document with generated inputs: no 5xx, no 429, every answer as declared', async () => {
    const ops = operations();
    // The document's /v1, every operation of it.
    expect(ops.map((o) => `${o.method} ${o.path}`).sort()).toEqual([
      'DELETE /v1/api-keys/{key}',
      'GET /v1/api-keys',
      'GET /v1/org',
      'GET /v1/webhooks',
      'GET /v1/webhooks/{webhook}/deliveries',
      'POST /v1/api-keys',
      'POST /v1/webhooks',
    ]);
    const statuses = new Map<string, Set<number>>();
    const problems: string[] = [];
    for (const op of ops) {
      const names = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string);
      const input = fc.record({
        auth: credential(),
        params: fc.tuple(...names.map(parameter)),
        body: op.bodyTypes.length ? body(op.bodyTypes) : fc.constant(undefined),
        query: fc.option(fc.string({maxLength: 20}).map((q) => `?${encodeURIComponent(q)}=1`)),
        accept: fc.option(fc.oneof(fc.constantFrom('application/json', '*/*', 'text/html'), headerText)),
      });
      await fc.assert(
        fc.asyncProperty(input, async (r) => {
          let i = 0;
          const url = op.path.replace(/\{\w+\}/g, () => r.params[i++] as string) + (r.query ?? '');
          const headers: Record<string, string> = {};
          if (r.auth !== undefined) headers.authorization = r.auth;
          if (r.accept) headers.accept = r.accept;
          if (r.body) headers['content-type'] = r.body.type;
          const res = await request(new URL(url, em.apiUrl), {
            method: op.method,
            headers,
            body: r.body?.text,
            dispatcher: agent,
          });
          const text = await res.body.text();
          const exchange: Exchange = {
            method: op.method,
            url,
            status: res.statusCode,
            headers: Object.fromEntries(
              Object.entries(res.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v)]),
            ),
            body: text,
          };
          const key = `${op.method} ${op.path}`;
          statuses.set(key, (statuses.get(key) ?? new Set()).add(res.statusCode));
          expect(res.statusCode, `${op.method} ${url}: ${text}`).toBeLessThan(500);
          expect(res.statusCode, `${op.method} ${url}`).not.toBe(429);
          const found = check(exchange);
          if (found.some((p) => p.endsWith('no operation of the document matches'))) {
            // A generated id may make the path none of the document's (an empty segment, a `..`): then the
            // answer is authentication's 401 or the router's 404, in the error shape.
            const code = (JSON.parse(text) as {error: {code: string}}).error.code;
            expect([`401 unauthorized`, '404 not_found'], url).toContain(`${res.statusCode} ${code}`);
          } else problems.push(...found);
        }),
        {numRuns: RUNS_PER_OPERATION, seed: 4242},
      );
    }
    expect(problems.slice(0, 10)).toEqual([]);
    // The run reached past authentication on every operation, and into the answers each one is for.
    for (const op of ops) {
      const seen = statuses.get(`${op.method} ${op.path}`) ?? new Set();
      expect([...seen], `${op.method} ${op.path}`).toContain(401);
      expect([...seen], `${op.method} ${op.path}`).toContain(op.method === 'GET' ? 200 : 403);
    }
    expect([...(statuses.get('GET /v1/webhooks/{webhook}/deliveries') ?? [])]).toContain(404);
  });

  it('answers every error code the document names, and no other, each with its status and in the error shape', async () => {
    const seen = new Map<string, number>();
    const ask = async (path: string, init: {method?: string; headers?: Record<string, string>} = {}) => {
      const res = await request(new URL(path, em.apiUrl), {
        method: init.method ?? 'GET',
        headers: init.headers ?? {},
        dispatcher: agent,
      });
      const answer = (await res.body.json()) as {error: {code: string; message: string}};
      seen.set(answer.error.code, res.statusCode);
      expect(answer.error.message.length).toBeGreaterThan(0);
      return {status: res.statusCode, code: answer.error.code, allow: res.headers.allow};
    };
    const auth = {authorization: `Bearer ${secret}`};
    expect(await ask('/v1/org')).toMatchObject({status: 401, code: 'unauthorized'});
    expect(await ask('/v1/api-keys', {method: 'POST', headers: auth})).toMatchObject({status: 403});
    expect(await ask(`/v1/webhooks/${otherOrgEndpoint}/deliveries`, {headers: auth})).toMatchObject({
      status: 404,
      code: 'not_found',
    });
    // A method the path does not answer: 405 method_not_allowed, with the methods it does answer.
    expect(await ask('/v1/org', {method: 'PATCH', headers: auth})).toEqual({
      status: 405,
      code: 'method_not_allowed',
      allow: 'GET, HEAD',
    });
    expect((await ask('/v1/webhooks', {method: 'PUT', headers: auth})).allow).toBe('GET, HEAD, POST');
    // A name the emulator does not answer to (DNS rebinding).
    expect(await ask('/v1/org', {headers: {...auth, host: 'attacker.example'}})).toMatchObject({
      status: 421,
      code: 'misdirected_request',
    });
    for (const [code, status] of seen) {
      expect(V1_ERROR_CODES as readonly string[], code).toContain(code);
      expect(status, code).toBe(ERROR_STATUS[code as ErrorCode]);
    }
    expect([...seen.keys()]).toEqual(
      expect.arrayContaining([
        'unauthorized',
        'forbidden',
        'not_found',
        'method_not_allowed',
        'misdirected_request',
      ]),
    );
  });

  it('never answers 429 to a burst of wrong keys with the limit off, and says the limit is off', async () => {
    const wrong = (i: number) => `Bearer svc_${String(i).padStart(40, 'Q')}`;
    const answers = await Promise.all(
      Array.from({length: 120}, (_, i) =>
        request(new URL('/v1/org', em.apiUrl), {headers: {authorization: wrong(i)}, dispatcher: agent}).then(
          async (res) => {
            await res.body.dump();
            return res.statusCode;
          },
        ),
      ),
    );
    // Six times the limit of 20 failures a minute, all of them plain 401s; the good key still gets in.
    expect(new Set(answers)).toEqual(new Set([401]));
    expect((await fetch(`${em.apiUrl}/v1/org`, {headers: {authorization: `Bearer ${secret}`}})).status).toBe(
      200,
    );
    // The control surface counts nothing either.
    const control = await Promise.all(
      Array.from({length: 30}, () =>
        fetch(`${em.apiUrl}/_emulator/health`, {headers: {authorization: 'Bearer adm_wrong'}}).then(
          (r) => r.status,
        ),
      ),
    );
    expect(new Set(control)).toEqual(new Set([401]));
    // Loud: a warning line at start, and the health answer (what `svc emulator status` shows) says so.
    expect(logLines).toContain(RATE_LIMIT_OFF_WARNING);
    expect(await em.control.health()).toEqual({ok: true, org_id: em.orgId, rate_limit: 'off'});
  });
});
