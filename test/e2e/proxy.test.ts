// HTTPS_PROXY / HTTP_PROXY / NO_PROXY, as company networks and CI runners set them: the built CLI talks to a
// real API through a real CONNECT proxy on loopback, straight to hosts NO_PROXY names, and never through any
// proxy to this machine's own addresses (an emulator), whatever the variables say.
import {execFileSync} from 'node:child_process';
import {mkdtempSync, readFileSync, rmSync} from 'node:fs';
import {createServer as createHttpServer, request as httpRequest, type Server} from 'node:http';
import {createServer as createHttpsServer} from 'node:https';
import {type AddressInfo, connect, type Socket} from 'node:net';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js';
import {describeNeeding, OPENSSL} from '../helpers/requirements.js';
import {runCli, runCommand} from '../helpers/run-cli.js';

interface Proxy {
  url: string;
  /** Each request as the proxy saw it: `CONNECT host:port` or `GET http://…`. */
  seen: string[];
  close(): Promise<void>;
}

/** The API's name as the proxy resolves it: a name the CLI never looks up itself when it goes through the proxy. */
const API_NAME = 'api.svc.test';

/**
 * A small forward proxy recording what it is asked: CONNECT tunnels (what HTTPS and undici use) and
 * absolute-URI requests; `refuse` answers every one with 403, as proxies that allow no CONNECT to a port do.
 */
async function startProxy(options: {refuse?: boolean} = {}): Promise<Proxy> {
  const seen: string[] = [];
  const sockets = new Set<Socket>();
  const server = createHttpServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    if (options.refuse) return res.writeHead(403).end();
    const target = new URL(req.url ?? '');
    const upstream = httpRequest(
      target,
      {method: req.method, headers: {...req.headers, host: target.host}},
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  server.on('connect', (req, client: Socket, head) => {
    seen.push(`CONNECT ${req.url}`);
    if (options.refuse) {
      client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
      return;
    }
    const [host, port] = (req.url ?? '').split(/:(?=\d+$)/);
    const upstream = connect(Number(port), host === API_NAME ? '127.0.0.1' : host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(client).add(upstream);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  server.on('connection', (socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const {port} = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

// The HTTPS API's certificate is made with openssl.
describeNeeding([OPENSSL], 'proxies', () => {
  let emu: RunningEmulator;
  let secret: string;
  let proxy: Proxy;
  let tls: {server: Server; url: string; caFile: string; dir: string};

  beforeAll(async () => {
    emu = await startEmulator({port: 0, inMemory: true, clock: 'manual'});
    secret = (await emu.control.createKey({name: 'behind-a-proxy'})).secret;
    proxy = await startProxy();

    // An HTTPS API named API_NAME (reached through the proxy) with its own certificate, trusted by the CLI through
    // NODE_EXTRA_CA_CERTS.
    const dir = mkdtempSync(join(tmpdir(), 'svc-proxy-'));
    const key = join(dir, 'key.pem');
    const cert = join(dir, 'cert.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        '1',
        '-subj',
        `/CN=${API_NAME}`,
        '-addext',
        `subjectAltName=DNS:${API_NAME}`,
      ],
      {stdio: 'ignore'},
    );
    const org = readFileSync(new URL('../../fixtures/api/org.json', import.meta.url));
    const server = createHttpsServer({key: readFileSync(key), cert: readFileSync(cert)}, (req, res) => {
      const ok = req.url === '/v1/org' && req.headers.authorization === `Bearer ${secret}`;
      res.writeHead(ok ? 200 : 401, {'content-type': 'application/json'});
      res.end(ok ? org : '{"error":{"code":"unauthorized","message":"no"}}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const {port} = server.address() as AddressInfo;
    tls = {server, url: `https://${API_NAME}:${port}`, caFile: cert, dir};
  }, 60_000);

  afterAll(async () => {
    await proxy?.close();
    await new Promise((resolve) => tls?.server.close(resolve));
    if (tls) rmSync(tls.dir, {recursive: true, force: true});
    await emu?.stop();
  });

  describe('proxies', {timeout: 60_000}, () => {
    it('sends an https:// API request through HTTPS_PROXY, end to end encrypted', async () => {
      const before = proxy.seen.length;
      const port = new URL(tls.url).port;
      // Spawned: Node reads NODE_EXTRA_CA_CERTS (the test API's certificate) only when a process starts.
      const r = await runCli(['org', '--json'], {
        env: {
          SVC_API_URL: tls.url,
          SVC_API_KEY: secret,
          HTTPS_PROXY: proxy.url,
          NODE_EXTRA_CA_CERTS: tls.caFile,
        },
      });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout).name).toBeTruthy();
      expect(proxy.seen.slice(before)).toEqual([`CONNECT ${API_NAME}:${port}`]);
    });

    it('goes straight to hosts NO_PROXY names', async () => {
      const before = proxy.seen.length;
      const r = await runCommand(['org', '--json'], {
        env: {
          SVC_API_URL: tls.url,
          SVC_API_KEY: secret,
          HTTPS_PROXY: proxy.url,
          NO_PROXY: `example.com,${API_NAME}`,
          NODE_EXTRA_CA_CERTS: tls.caFile,
        },
      });
      // Straight means the CLI looks the name up itself, and only the proxy knows it.
      expect(r.code).not.toBe(0);
      expect(r.stdout).toContain(API_NAME);
      expect(proxy.seen.length).toBe(before);
    });

    describe("never sends a request for this machine's addresses to a proxy", () => {
      const variables = ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy'];
      const noProxies = [undefined, '', 'example.com'];
      const cases = variables.flatMap((variable) =>
        noProxies.flatMap((noProxy) => ['127.0.0.1', 'localhost'].map((host) => ({variable, noProxy, host}))),
      );
      it.each(cases)('$host with $variable, NO_PROXY=$noProxy', async ({variable, noProxy, host}) => {
        const before = proxy.seen.length;
        const apiUrl = `http://${host}:${new URL(emu.apiUrl).port}`;
        const env: Record<string, string> = {SVC_API_URL: apiUrl, SVC_API_KEY: secret, [variable]: proxy.url};
        if (noProxy !== undefined) env.NO_PROXY = noProxy;
        const r = await runCommand(['keys', 'list', '--json'], {env});
        expect(r.code, r.stderr).toBe(0);
        expect(JSON.parse(r.stdout).data.map((k: {name: string}) => k.name)).toContain('behind-a-proxy');
        expect(proxy.seen.slice(before)).toEqual([]);
      });

      it('reaches the emulator when the proxy refuses every CONNECT', async () => {
        const refusing = await startProxy({refuse: true});
        try {
          const r = await runCommand(['org', '--json'], {
            env: {
              SVC_API_URL: emu.apiUrl,
              SVC_API_KEY: secret,
              HTTP_PROXY: refusing.url,
              HTTPS_PROXY: refusing.url,
            },
          });
          expect(r.code, r.stderr).toBe(0);
          expect(refusing.seen).toEqual([]);
        } finally {
          await refusing.close();
        }
      });
    });

    it('uses no proxy when none is set', async () => {
      const before = proxy.seen.length;
      const r = await runCommand(['keys', 'list', '--json'], {
        env: {SVC_API_URL: emu.apiUrl, SVC_API_KEY: secret},
      });
      expect(r.code).toBe(0);
      expect(proxy.seen.length).toBe(before);
    });

    it('says so when the proxy cannot be reached', async () => {
      const closed = await startProxy();
      await closed.close();
      const r = await runCommand(['org'], {
        env: {
          SVC_API_URL: tls.url,
          SVC_API_KEY: secret,
          HTTPS_PROXY: closed.url,
          NODE_EXTRA_CA_CERTS: tls.caFile,
        },
      });
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(/could not reach/);
      expect(r.stderr).not.toContain(secret);
    });
  });
});
