// The emulator's operations, through the control surface on loopback and called directly: every rule in one
// place, every input problem at once, the way out named, nothing of another org reachable.
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js';
import {createEndpoint, deleteEndpoint, listEndpoints} from '../../src/emulator/ops/endpoints.js';
import {OperationError} from '../../src/emulator/operation-error.js';
import {createKey, listKeys, revokeKey} from '../../src/emulator/ops/keys.js';
import {createOrg} from '../../src/emulator/ops/orgs.js';
import {MAX_ACTIVE_KEYS_PER_ORG, MAX_ENDPOINTS_PER_ORG} from '../../src/definitions.js';

let emu: RunningEmulator;
let offline = false;

beforeAll(async () => {
  emu = await startEmulator({
    port: 0,
    inMemory: true,
    // A resolver that knows one public name and, when told, behaves like a laptop with no network.
    lookup: async (host) => {
      if (offline) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), {code: 'ENOTFOUND'});
      if (host === 'internal.example.com') return [{address: '10.0.0.7', family: 4}];
      return [{address: '93.184.215.14', family: 4}];
    },
  });
});
afterAll(async () => {
  await emu?.stop();
});

async function control(method: string, path: string, body?: unknown) {
  const res = await fetch(`${emu.apiUrl}${path}`, {
    method,
    headers: {authorization: `Bearer ${emu.adminToken}`, 'content-type': 'application/json'},
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  // biome-ignore lint/suspicious/noExplicitAny: answers of several routes, read field by field in the tests
  type Answer = Record<string, any>;
  return {status: res.status, body: text ? (JSON.parse(text) as Answer) : undefined};
}

describe('input is checked before it reaches the database', () => {
  it.each([
    ['a key name', '/_emulator/keys', {name: 'ci\u0000job'}, 'name'],
    ['a key creator', '/_emulator/keys', {name: 'ci', created_by: 'me\u0000@example.com'}, 'created_by'],
    ['an org name', '/_emulator/orgs', {name: 'acme\u0007'}, 'name'],
    ['a sandbox name', '/_emulator/sandboxes', {name: 'box\u0000'}, 'name'],
    ['an error text', '/_emulator/trigger', {type: 'sandbox.error', last_error: 'boom\u0000'}, 'last_error'],
    [
      'an endpoint description',
      '/_emulator/webhooks',
      {url: 'https://hooks.example.com/a', events: ['sandbox.ready'], description: 'x\u0000y'},
      'description',
    ],
  ])('refuses control characters in %s with 400 naming the field', async (_what, path, body, field) => {
    const res = await control('POST', path, body);
    expect(res.status).toBe(400);
    expect(res.body?.error).toMatchObject({
      code: 'invalid_request',
      message: `${field} must not contain control characters`,
      problems: [{field, message: 'must not contain control characters'}],
    });
  });

  it('accepts line breaks in free text such as a sandbox error', async () => {
    const res = await control('POST', '/_emulator/trigger', {
      type: 'sandbox.error',
      last_error: 'line 1\nline 2',
    });
    expect(res.status).toBe(201);
    expect(res.body?.event.data.sandbox.last_error).toBe('line 1\nline 2');
  });

  it('reports every problem of an endpoint at once, before any DNS lookup', async () => {
    let lookups = 0;
    const counting = {
      ...emu.context,
      lookup: async () => {
        lookups++;
        return [{address: '93.184.215.14', family: 4}];
      },
    };
    const err = await createEndpoint(counting, {
      orgId: emu.orgId,
      url: 'http://hooks.example.com/a',
      events: ['sandbox.ready', 'sandbox.nope', 'sandbox.ready'],
      description: 'd'.repeat(201),
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OperationError);
    expect((err as OperationError).problems.map((p) => p.field)).toEqual([
      'url',
      'events',
      'events',
      'description',
    ]);
    expect((err as OperationError).message).toMatch(/^url must use https:\/\/.*; events unknown event type/);
    expect(lookups).toBe(0);
  });
});

describe('endpoints', () => {
  it('names the ways out when a local URL is refused', async () => {
    for (const url of [
      'http://localhost:3000/hooks',
      'https://127.0.0.1/hooks',
      'https://internal.example.com/h',
    ]) {
      const res = await control('POST', '/_emulator/webhooks', {url, events: ['sandbox.ready']});
      expect(res.status).toBe(400);
      expect(res.body?.error.message).toContain('svc listen --forward-to');
      expect(res.body?.error.message).toContain('--allow-local-endpoints');
      // The reason travels as a code, so a caller acts on it without reading the message.
      expect(res.body?.error.problems).toEqual([expect.objectContaining({field: 'url', code: 'local_url'})]);
    }
  });

  it('gives a refusal that is not about this machine no local_url code and no way out', async () => {
    for (const url of ['https://hooks.example.com/a#frag', 'https://user:pw@hooks.example.com/a']) {
      const res = await control('POST', '/_emulator/webhooks', {url, events: ['sandbox.ready']});
      expect(res.status).toBe(400);
      expect(res.body?.error.message).not.toContain('--allow-local-endpoints');
      expect(res.body?.error.problems).toEqual([{field: 'url', message: expect.any(String)}]);
    }
  });

  it('accepts a host DNS cannot answer for, with a warning, and stores the normalised URL', async () => {
    offline = true;
    try {
      const res = await control('POST', '/_emulator/webhooks', {
        url: 'HTTPS://Hooks.Offline.Example.COM:443/svc',
        events: ['sandbox.ready'],
      });
      expect(res.status).toBe(201);
      expect(res.body?.url).toBe('https://hooks.offline.example.com/svc');
      expect(res.body?.warnings).toEqual([expect.stringContaining('could not be resolved now')]);
      await deleteEndpoint(emu.context, {endpointId: res.body?.id});
    } finally {
      offline = false;
    }
  });

  it('explains the endpoint limit where it is reached, and deletes only within the org', async () => {
    const org = await createOrg(emu.context, {name: 'limits'});
    const made: string[] = [];
    for (let i = 0; i < MAX_ENDPOINTS_PER_ORG; i++) {
      const {endpoint} = await createEndpoint(emu.context, {
        orgId: org.id,
        url: `https://hooks.example.com/${i}`,
        events: ['sandbox.ready'],
      });
      made.push(endpoint.id);
    }
    const err = await createEndpoint(emu.context, {
      orgId: org.id,
      url: 'https://hooks.example.com/one-more',
      events: ['sandbox.ready'],
    }).catch((e: unknown) => e as OperationError);
    expect(err).toMatchObject({code: 'conflict', status: 409});
    expect((err as OperationError).message).toMatch(/already has 10 webhook endpoints.*delete one/);
    await expect(
      deleteEndpoint(emu.context, {orgId: emu.orgId, endpointId: made[0] as string}),
    ).rejects.toMatchObject({
      code: 'not_found',
    });
    expect(await listEndpoints(emu.context, org.id)).toHaveLength(MAX_ENDPOINTS_PER_ORG);
  });
});

describe('keys', () => {
  it('mints, lists without secrets, revokes at once, and explains the 25-key limit', async () => {
    const org = await createOrg(emu.context, {name: 'keys'});
    const first = await createKey(emu.context, {
      orgId: org.id,
      name: 'first',
      expires: '30',
      createdBy: 'a@b.c',
    });
    expect(first.key).toMatchObject({name: 'first', created_by: 'a@b.c', status: 'active'});
    expect(first.secret.startsWith(first.key.prefix)).toBe(true);
    expect(JSON.stringify(await listKeys(emu.context, org.id))).not.toContain(first.secret);

    const api = (secret: string) =>
      fetch(`${emu.apiUrl}/v1/org`, {headers: {authorization: `Bearer ${secret}`}});
    expect((await api(first.secret)).status).toBe(200);
    await expect(revokeKey(emu.context, {orgId: emu.orgId, keyId: first.key.id})).rejects.toMatchObject({
      code: 'not_found',
    });
    expect((await revokeKey(emu.context, {orgId: org.id, keyId: first.key.id})).status).toBe('revoked');
    expect((await api(first.secret)).status).toBe(401);

    for (let i = 0; i < MAX_ACTIVE_KEYS_PER_ORG; i++)
      await createKey(emu.context, {orgId: org.id, name: `k${i}`});
    const err = await createKey(emu.context, {orgId: org.id, name: 'one more'}).catch((e: unknown) => e);
    expect(err).toMatchObject({code: 'conflict'});
    expect((err as Error).message).toMatch(/already has 25 active API keys.*revoke one/);
  });

  it('refuses an expiry that is not offered', async () => {
    const res = await control('POST', '/_emulator/keys', {name: 'x', expires: '45'});
    expect(res.status).toBe(400);
    expect(res.body?.error.message).toBe('expires must be one of 30, 90, 365, never');
  });
});
