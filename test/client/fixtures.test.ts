// fixtures/api is what docs and mocks show; it must be exactly what the client accepts.
import {setupServer} from 'msw/node';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {createClient} from '../../src/client/index.js';
import {fixtures, MockApi} from '../helpers/msw-handlers.js';

const API = 'https://api.svc.test';
const mock = new MockApi({seed: true});
const server = setupServer(...mock.handlers());
beforeAll(() => server.listen({onUnhandledRequest: 'error'}));
afterAll(() => server.close());

describe('the seeded mock serves fixtures/api unchanged through the client', () => {
  const key = mock.mintKey({name: 'reader'});
  const client = createClient({apiUrl: API, apiKey: key.secret, retries: 0});

  it('org', async () => {
    expect(await client.getOrg()).toEqual(fixtures.org());
  });

  it('api keys (plus the one minted to read them)', async () => {
    const listed = await client.listApiKeys();
    expect(listed.filter((k) => k.id !== key.id)).toEqual(
      [...fixtures.apiKeys()].sort((a, b) => b.created_at.localeCompare(a.created_at)),
    );
    expect(new Set(listed.map((k) => k.status))).toEqual(new Set(['active', 'expired', 'revoked']));
  });

  it('webhooks and deliveries', async () => {
    expect(await client.listWebhooks()).toEqual(fixtures.webhooks());
    const {webhook_id, data} = fixtures.deliveries();
    expect(await client.listDeliveries(webhook_id)).toEqual(data);
  });
});
