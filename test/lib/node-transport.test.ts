// The CLI's node:http transport, against real loopback servers.
import {createServer, type RequestListener, type Server} from 'node:http';
import type {AddressInfo} from 'node:net';
import {afterEach, describe, expect, it} from 'vitest';
import {createClient, NetworkError, UnauthorizedError} from '../../src/client/index.js';
import {nodeHttpFetch} from '../../src/lib/node-transport.js';
import {newApiKeySecret} from '../../src/emulator/ids.js';
import {fixtures} from '../helpers/msw-handlers.js';

const KEY = newApiKeySecret();
const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

async function serve(handler: RequestListener): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const client = (apiUrl: string, timeoutMs = 5000) =>
  createClient({apiUrl, apiKey: KEY, fetch: nodeHttpFetch(), retries: 0, timeoutMs});

describe('nodeHttpFetch', () => {
  it('sends the same headers as fetch would and parses the answer', async () => {
    const seen: Record<string, string | string[] | undefined>[] = [];
    const url = await serve((req, res) => {
      seen.push(req.headers);
      res.writeHead(200, {'content-type': 'application/json'});
      res.end(JSON.stringify(fixtures.org()));
    });
    expect(await client(url).getOrg()).toEqual(fixtures.org());
    expect(seen[0]).toMatchObject({authorization: `Bearer ${KEY}`, accept: 'application/json'});
    expect(String(seen[0]!['user-agent'])).toMatch(/^svc\/\S+ node\/\S+$/);
  });

  it('maps error answers through the same typed errors', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(401, {'content-type': 'application/json'});
      res.end(JSON.stringify({error: {code: 'unauthorized', message: 'no'}}));
    });
    await expect(client(url).getOrg()).rejects.toBeInstanceOf(UnauthorizedError);
  });

  it('reports a refused connection and a server that never answers as network errors', async () => {
    const url = await serve(() => {
      // never answers
    });
    const slow = await client(url, 100)
      .getOrg()
      .catch((e: unknown) => e);
    expect(slow).toBeInstanceOf(NetworkError);
    expect((slow as Error).message).toBe(`could not reach ${url}/v1/org: no answer within 0.1 s`);

    const closed = url.replace(/:\d+$/, ':9');
    const refused = await client(closed)
      .getOrg()
      .catch((e: unknown) => e);
    expect((refused as Error).message).toBe(`could not reach ${closed}/v1/org: connection refused`);
  });

  it('never follows a redirect', async () => {
    let followed = 0;
    const target = await serve((_req, res) => {
      followed++;
      res.end('{}');
    });
    const url = await serve((_req, res) => {
      res.writeHead(302, {location: `${target}/v1/org`});
      res.end();
    });
    await expect(client(url).getOrg()).rejects.toMatchObject({code: 'unexpected_redirect'});
    expect(followed).toBe(0);
  });
});

describe('an answer that stops half-way', () => {
  it('is a network error, not a crash', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, {'content-type': 'application/json', 'content-length': '1000'});
      res.write('{"id": "org_');
      setTimeout(() => res.destroy(), 20);
    });
    const err = await client(url)
      .getOrg()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as Error).message).toContain(`could not reach ${url}/v1/org`);
  });
});
