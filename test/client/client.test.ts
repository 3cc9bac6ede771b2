import {mkdirSync, mkdtempSync, rmSync} from 'node:fs';
import {join} from 'node:path';
import {fileURLToPath, pathToFileURL} from 'node:url';
import {delay, HttpResponse, http} from 'msw';
import {setupServer} from 'msw/node';
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest';
import {
  accountUrlFor,
  ApiError,
  createClient,
  ForbiddenError,
  InvalidRequestError,
  NetworkError,
  NotFoundError,
  RateLimitedError,
  UnauthorizedError,
  VaultUnavailableError,
} from '../../src/client/index.js';
import {newApiKeySecret} from '../../src/emulator/ids.js';
import {toUserError} from '../../src/lib/error-mapper.js';
import {fixtures} from '../helpers/msw-handlers.js';

const API = 'https://api.svc.test';
const KEY = newApiKeySecret();
const server = setupServer();

beforeAll(() => server.listen({onUnhandledRequest: 'error'}));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

/** A client whose waits are recorded instead of slept. */
function testClient(options: Partial<Parameters<typeof createClient>[0]> = {}) {
  const waits: number[] = [];
  const client = createClient({
    apiUrl: API,
    apiKey: KEY,
    sleep: async (ms) => {
      waits.push(ms);
    },
    random: () => 0.5,
    ...options,
  });
  return {client, waits};
}

const errorBody = (code: string, message = code) => ({error: {code, message}});

describe('the client reads the documented API', () => {
  it('sends the key as a bearer token with a svc/<version> node/<version> user agent', async () => {
    let seen: Headers | undefined;
    server.use(
      http.get(`${API}/v1/org`, ({request}) => {
        seen = request.headers;
        return HttpResponse.json(fixtures.org());
      }),
    );
    const org = await testClient().client.getOrg();
    expect(org).toEqual(fixtures.org());
    expect(seen?.get('authorization')).toBe(`Bearer ${KEY}`);
    expect(seen?.get('user-agent')).toMatch(/^svc\/\d+\.\d+\.\d+\S* node\/\d+\.\d+\.\d+$/);
  });

  it('keeps fields it does not know about', async () => {
    server.use(
      http.get(`${API}/v1/api-keys`, () =>
        HttpResponse.json({data: [{...fixtures.apiKeys()[0], scopes: ['read']}]}),
      ),
    );
    const [key] = await testClient().client.listApiKeys();
    expect(key).toMatchObject({scopes: ['read'], name: fixtures.apiKeys()[0]!.name});
  });

  it('reports an answer of the wrong shape as invalid_response naming the field', async () => {
    server.use(http.get(`${API}/v1/webhooks`, () => HttpResponse.json({data: [{id: 'we_x'}]})));
    const err = await testClient()
      .client.listWebhooks()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({code: 'invalid_response'});
    expect((err as Error).message).toMatch(/data\.0\.url/);
  });

  it('encodes the webhook id into the path and refuses ids that are not endpoint ids without a request', async () => {
    const id = fixtures.deliveries().webhook_id;
    let requests = 0;
    server.use(
      http.get(`${API}/v1/webhooks/:id/deliveries`, ({params}) => {
        requests++;
        expect(params.id).toBe(id);
        return HttpResponse.json({data: fixtures.deliveries().data});
      }),
    );
    const {client} = testClient();
    expect(await client.listDeliveries(id)).toHaveLength(3);
    for (const bad of ['../api-keys', 'we_short', `${id}/../x`, 'we_%2e%2e', '']) {
      await expect(client.listDeliveries(bad)).rejects.toBeInstanceOf(InvalidRequestError);
    }
    expect(requests).toBe(1);
  });
});

describe('one place maps HTTP errors to typed errors', () => {
  const cases = [
    {
      status: 400,
      body: errorBody('invalid_request', 'bad thing'),
      type: InvalidRequestError,
      code: 'invalid_request',
      exit: 1,
    },
    {status: 401, body: errorBody('unauthorized'), type: UnauthorizedError, code: 'unauthorized', exit: 4},
    {status: 403, body: errorBody('forbidden'), type: ForbiddenError, code: 'forbidden', exit: 5},
    {
      status: 404,
      body: errorBody('not_found', 'no webhook endpoint with this id'),
      type: NotFoundError,
      code: 'not_found',
      exit: 1,
    },
    {status: 500, body: errorBody('internal', 'internal error'), type: ApiError, code: 'internal', exit: 1},
    {
      status: 503,
      body: errorBody('vault_unavailable'),
      type: VaultUnavailableError,
      code: 'vault_unavailable',
      exit: 1,
    },
    {status: 502, body: '<html>bad gateway</html>', type: ApiError, code: 'server_error', exit: 1},
  ] as const;

  for (const c of cases) {
    it(`${c.status} becomes ${c.type.name} (${c.code}, exit ${c.exit})`, async () => {
      server.use(
        http.get(`${API}/v1/org`, () =>
          typeof c.body === 'string'
            ? new HttpResponse(c.body, {status: c.status, headers: {'content-type': 'text/html'}})
            : HttpResponse.json(c.body, {status: c.status}),
        ),
      );
      const err = await testClient({retries: 0})
        .client.getOrg()
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(c.type);
      expect(err).toMatchObject({code: c.code, status: c.status});
      // The library leaves exit codes and next steps to its caller; the CLI's mapper adds them.
      expect(err).not.toHaveProperty('exitCode');
      const shown = toUserError(err);
      expect(shown).toMatchObject({code: c.code, exitCode: c.exit});
      expect(shown.suggestions.length + shown.message.length).toBeGreaterThan(0);
    });
  }

  it('tells a 401 to log in with a new key, and a 403 where the account page is', async () => {
    server.use(http.get(`${API}/v1/org`, () => HttpResponse.json(errorBody('unauthorized'), {status: 401})));
    const rejected = await testClient()
      .client.getOrg()
      .catch((e: unknown) => e);
    // The library says what happened; how to log in again is the CLI's to say.
    expect((rejected as Error).message).toMatch(/rejected \(revoked or expired\?\)/);
    expect((rejected as Error).message).not.toContain('svc login');
    expect(toUserError(rejected).suggestions.join('\n')).toMatch(/Run `svc login` with a new key/);
    server.use(http.get(`${API}/v1/org`, () => HttpResponse.json(errorBody('forbidden'), {status: 403})));
    await expect(testClient({accountUrl: 'https://example.test/account'}).client.getOrg()).rejects.toThrow(
      /account page: https:\/\/example\.test\/account/,
    );
  });

  it('strips terminal control characters from messages the server sends', async () => {
    server.use(
      http.get(`${API}/v1/org`, () =>
        HttpResponse.json(errorBody('not_found', 'gone\u001b[2J\u001b]0;pwned\u0007'), {status: 404}),
      ),
    );
    const err = (await testClient()
      .client.getOrg()
      .catch((e: unknown) => e)) as Error;
    expect(err.message).not.toMatch(/[\u0000-\u001f]/);
  });
});

describe('retries', () => {
  it('retries 502, 503 and 504 with growing backoff, then succeeds', async () => {
    const answers = [502, 503, 504];
    server.use(
      http.get(`${API}/v1/org`, () => {
        const status = answers.shift();
        return status
          ? HttpResponse.json(errorBody('internal'), {status})
          : HttpResponse.json(fixtures.org());
      }),
    );
    const {client, waits} = testClient({retries: 3});
    await expect(client.getOrg()).resolves.toMatchObject({id: fixtures.org().id});
    expect(waits).toHaveLength(3);
    expect(waits[1]!).toBeGreaterThan(waits[0]!);
    expect(waits[2]!).toBeGreaterThan(waits[1]!);
  });

  it('waits as long as Retry-After says on a 429', async () => {
    let calls = 0;
    server.use(
      http.get(`${API}/v1/org`, () =>
        ++calls === 1
          ? HttpResponse.json(errorBody('rate_limited'), {status: 429, headers: {'Retry-After': '3'}})
          : HttpResponse.json(fixtures.org()),
      ),
    );
    const {client, waits} = testClient();
    await client.getOrg();
    expect(waits).toEqual([3000]);
  });

  it('does not wait out a Retry-After beyond the cap: it reports it instead', async () => {
    server.use(
      http.get(`${API}/v1/org`, () =>
        HttpResponse.json(errorBody('rate_limited'), {status: 429, headers: {'Retry-After': '600'}}),
      ),
    );
    const {client, waits} = testClient();
    const err = await client.getOrg().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitedError);
    expect((err as RateLimitedError).retryAfterSeconds).toBe(600);
    expect(waits).toEqual([]);
  });

  it('gives up after the configured number of retries', async () => {
    let calls = 0;
    server.use(
      http.get(`${API}/v1/org`, () => {
        calls++;
        return HttpResponse.json(errorBody('rate_limited'), {status: 429});
      }),
    );
    await expect(testClient({retries: 2}).client.getOrg()).rejects.toBeInstanceOf(RateLimitedError);
    expect(calls).toBe(3);
  });

  it('does not retry a 503 that says the vault key is missing, nor a 401', async () => {
    let calls = 0;
    server.use(
      http.get(`${API}/v1/webhooks/:id/deliveries`, () => {
        calls++;
        return HttpResponse.json(errorBody('vault_unavailable'), {status: 503});
      }),
      http.get(`${API}/v1/org`, () => {
        calls++;
        return HttpResponse.json(errorBody('unauthorized'), {status: 401});
      }),
    );
    const {client, waits} = testClient();
    await expect(client.listDeliveries(fixtures.deliveries().webhook_id)).rejects.toBeInstanceOf(
      VaultUnavailableError,
    );
    await expect(client.getOrg()).rejects.toBeInstanceOf(UnauthorizedError);
    expect(calls).toBe(2);
    expect(waits).toEqual([]);
  });

  it('retries network failures, then reports the URL and never the key', async () => {
    let calls = 0;
    server.use(
      http.get(`${API}/v1/org`, () => {
        calls++;
        return HttpResponse.error();
      }),
    );
    const err = await testClient({retries: 1})
      .client.getOrg()
      .catch((e: unknown) => e);
    expect(calls).toBe(2);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as NetworkError).url).toBe(`${API}/v1/org`);
    expect((err as Error).message).toContain(`${API}/v1/org`);
    expect(JSON.stringify({m: (err as Error).message, s: toUserError(err).suggestions})).not.toContain(KEY);
  });

  it('times out a request that never answers', async () => {
    server.use(
      http.get(`${API}/v1/org`, async () => {
        await delay('infinite');
        return HttpResponse.json({});
      }),
    );
    const err = await testClient({retries: 0, timeoutMs: 50})
      .client.getOrg()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as Error).message).toMatch(/no answer within 0\.05 s/);
  });
});

describe('the key goes only where it should', () => {
  it('does not follow a redirect, so the Authorization header cannot travel with it', async () => {
    let elsewhere = 0;
    server.use(
      http.get(
        `${API}/v1/org`,
        () => new HttpResponse(null, {status: 302, headers: {Location: 'https://evil.test/v1/org'}}),
      ),
      http.get('https://evil.test/*', () => {
        elsewhere++;
        return HttpResponse.json(fixtures.org());
      }),
    );
    await expect(testClient().client.getOrg()).rejects.toMatchObject({code: 'unexpected_redirect'});
    expect(elsewhere).toBe(0);
  });

  it('refuses plain http to a remote host before sending anything', () => {
    expect(() => createClient({apiUrl: 'http://api.svc.test', apiKey: KEY})).toThrow(
      /plain http:\/\/ is refused/,
    );
  });

  it('refuses a key that cannot be a header value without echoing it', () => {
    const bad = `${KEY}\r\nX-Evil: 1`;
    let message = '';
    try {
      createClient({apiUrl: API, apiKey: bad});
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/cannot be sent in a header/);
    expect(message).not.toContain(KEY);
  });
});

describe('the default address, a build setting', () => {
  it('is unset in this build: createClient without apiUrl sends nothing and names the option', async () => {
    let called = false;
    const attempt = () =>
      createClient({
        apiKey: KEY,
        fetch: async () => {
          called = true;
          throw new Error('sent');
        },
      });
    expect(attempt).toThrow(/createClient needs `apiUrl`/);
    expect(called).toBe(false);
  });

  it('is the address a build names, and the hosted page with it', async () => {
    const {buildSettings} = await import('../../scripts/build-libs.js');
    const esbuild = await import('esbuild');
    // Inside the project, where the bundle's `zod` import resolves.
    const cache = fileURLToPath(new URL('../../node_modules/.cache', import.meta.url));
    mkdirSync(cache, {recursive: true});
    const dir = mkdtempSync(join(cache, 'svc-defaults-'));
    try {
      const outfile = join(dir, 'client.mjs');
      await esbuild.build({
        entryPoints: [fileURLToPath(new URL('../../src/client/index.ts', import.meta.url))],
        bundle: true,
        platform: 'node',
        format: 'esm',
        outfile,
        external: ['zod'],
        logLevel: 'silent',
        define: buildSettings({
          SVC_DEFAULT_API_URL: 'https://api.example.invalid',
          SVC_DEFAULT_ACCOUNT_URL: 'https://example.invalid/account',
        }),
      });
      const built = await import(pathToFileURL(outfile).href);
      expect(built.DEFAULT_API_URL).toBe('https://api.example.invalid');
      expect(built.accountUrlFor('https://api.example.invalid')).toBe('https://example.invalid/account');
      expect(built.createClient({apiKey: KEY}).apiUrl).toBe('https://api.example.invalid');
    } finally {
      rmSync(dir, {recursive: true, force: true});
    }
  });
});

describe('accountUrlFor', () => {
  it('names an emulator on loopback by its own name, so its cookies reach no other local server', () => {
    for (const api of ['http://127.0.0.1:4010', 'http://localhost:4010', 'http://[::1]:4010'])
      expect(accountUrlFor(api), api).toBe('http://svc-4010.localhost:4010/account');
    expect(accountUrlFor('http://127.0.0.1')).toBe('http://svc-80.localhost/account');
  });

  it('leaves any other address as it is', () => {
    expect(accountUrlFor('https://svc.internal:8443')).toBe('https://svc.internal:8443/account');
    expect(accountUrlFor('https://localhost:8443')).toBe('https://localhost:8443/account');
    expect(accountUrlFor('http://127.0.0.1:4010/base')).toBe('http://127.0.0.1:4010/base/account');
  });
});
