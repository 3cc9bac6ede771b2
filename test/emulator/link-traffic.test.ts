// What flows through a port session over real HTTP: a server-sent-events stream and a WebSocket are cut the moment
// their link stops working (its key revoked or expired, its sandbox stopped or expired), while other links' traffic
// flows on; an app that does not answer gets 504; the app is told where a request came from by the emulator, never
// by the client; each request is in the request log without its token; and the port session is served at its own
// name only. Runs on PGlite and on PostgreSQL (shown skipped, with why, where there is none).
import {createHash} from 'node:crypto';
import {createServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http';
import {type AddressInfo, connect, type Socket} from 'node:net';
import type {Duplex} from 'node:stream';
import {afterAll, beforeAll, beforeEach, expect, it} from 'vitest';
import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js';
import {accountOrigin} from '../../src/client/account-address.js';
import {EMULATOR_BACKENDS} from '../helpers/emulator-backends.js';
import {localhostFetch} from '../helpers/localhost-fetch.js';
import {describeEachBackend} from '../helpers/requirements.js';

const START = new Date('2031-05-01T12:00:00.000Z');
const WS_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

/** The loopback app behind the port sessions: an event stream, a WebSocket echo, a silent path, a header echo. */
interface App {
  port: number;
  /** Resolves when the app sees the stream at `path` closed by the emulator. */
  streamClosed(path: string): Promise<void>;
  send(path: string, data: string): void;
  upgradesClosed: Promise<void>[];
  close(): Promise<void>;
}

async function startApp(): Promise<App> {
  const streams = new Map<string, {res: ServerResponse; closed: Promise<void>}>();
  const upgradesClosed: Promise<void>[] = [];
  const sockets = new Set<Duplex>();
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = req.url ?? '/';
    if (path.startsWith('/events')) {
      const closed = new Promise<void>((resolve) => res.on('close', () => resolve()));
      streams.set(path, {res, closed});
      res.writeHead(200, {'content-type': 'text/event-stream', 'cache-control': 'no-store'});
      res.write('data: first\n\n');
      return;
    }
    if (path.startsWith('/silent')) return;
    res.writeHead(200, {'content-type': 'application/json'});
    res.end(JSON.stringify({headers: req.headers}));
  });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex) => {
    sockets.add(socket);
    upgradesClosed.push(new Promise((resolve) => socket.on('close', () => resolve())));
    const accept = createHash('sha1')
      .update(`${req.headers['sec-websocket-key']}${WS_GUID}`)
      .digest('base64');
    socket.write(
      `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
    );
    socket.on('data', (d: Buffer) => socket.write(d));
    socket.on('end', () => socket.end());
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    streamClosed: (path) => streams.get(path)?.closed ?? Promise.reject(new Error(`no stream at ${path}`)),
    send: (path, data) => streams.get(path)?.res.write(`data: ${data}\n\n`),
    upgradesClosed,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Opens an event stream through a link; `next` reads the next chunk, `ended` settles when the stream ends. */
async function openStream(url: string) {
  const res = await localhostFetch(url);
  expect(res.status).toBe(200);
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const next = async () => decoder.decode((await reader.read()).value);
  expect(await next()).toBe('data: first\n\n');
  let ending: Promise<void> | undefined;
  const ended = () => {
    ending ??= (async () => {
      try {
        while (!(await reader.read()).done) {}
      } catch {
        // Cut: the connection closed mid-answer.
      }
    })();
    return ending;
  };
  return {next, ended};
}

/** A WebSocket handshake over a plain socket, to a link URL at its own name. */
async function openWebSocket(linkUrl: string, path: string) {
  const url = new URL(`${linkUrl}${path}`);
  const socket: Socket = connect(Number(url.port), '127.0.0.1');
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  const key = 'dGhlIHNhbXBsZSBub25jZQ==';
  socket.write(
    `GET ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      `Sec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
  );
  let buffered = '';
  const waiters: (() => void)[] = [];
  socket.on('data', (d: Buffer) => {
    buffered += d.toString('latin1');
    for (const w of waiters.splice(0)) w();
  });
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.on('error', () => undefined);
  const until = async (test: (text: string) => boolean) => {
    while (!test(buffered)) await new Promise<void>((resolve) => waiters.push(resolve));
  };
  await until((t) => t.includes('\r\n\r\n'));
  const head = buffered.slice(0, buffered.indexOf('\r\n\r\n'));
  buffered = buffered.slice(head.length + 4);
  return {
    head,
    closed,
    async echo(text: string) {
      socket.write(text);
      await until((t) => t.includes(text));
      buffered = '';
    },
  };
}

describeEachBackend(EMULATOR_BACKENDS, 'traffic through port sessions on $name', (backend) => {
  let emu: RunningEmulator;
  let app: App;
  let dispose: () => Promise<void> = async () => {};
  let n = 0;

  beforeAll(async () => {
    const opened = await backend.options();
    dispose = opened.dispose;
    app = await startApp();
    emu = await startEmulator({
      ...opened.options,
      port: 0,
      clock: 'manual',
      clockStart: START,
      portSessionAnswerTimeoutMs: 300,
      log: () => undefined,
    });
  });
  afterAll(async () => {
    await emu?.stop();
    await app?.close();
    await dispose();
  });
  beforeEach(async () => {
    await emu.control.resetLimiter();
  });

  const setUp = async (o: {expires?: '30'; sandboxExpiresIn?: string} = {}) => {
    const {sandbox} = await emu.control.createSandbox({
      name: 'dev',
      ...(o.sandboxExpiresIn ? {expires_in: o.sandboxExpiresIn} : {}),
    });
    const key = await emu.control.createKey({name: 'ci', ...(o.expires ? {expires: o.expires} : {})});
    const link = await emu.control.createLink(sandbox.id, {kind: 'port', key_id: key.id, port: app.port});
    return {sandbox, key, link};
  };
  const uniquePath = () => `/events/${++n}`;
  const stream = async (linkUrl: string) => {
    const path = uniquePath();
    return {path, ...(await openStream(`${linkUrl}${path.slice(1)}`))};
  };

  it('cuts an event stream the moment its key is revoked, and no other link’s', async () => {
    const {key, link} = await setUp();
    const other = await setUp();
    const doomed = await stream(link.url);
    const kept = await stream(other.link.url);
    await emu.control.revokeKey(key.id);
    await doomed.ended();
    await app.streamClosed(doomed.path);
    app.send(kept.path, 'still here');
    expect(await kept.next()).toBe('data: still here\n\n');
  });

  it('cuts an event stream the moment its sandbox stops', async () => {
    const {sandbox, link} = await setUp();
    const open = await stream(link.url);
    await emu.control.sandboxAction(sandbox.id, 'stop');
    await open.ended();
    await app.streamClosed(open.path);
  });

  it('cuts an event stream when the clock passes its key’s expiry, or its sandbox’s', async () => {
    const byKey = await setUp({expires: '30'});
    const bySandbox = await setUp({sandboxExpiresIn: '10m'});
    const keyStream = await stream(byKey.link.url);
    const sandboxStream = await stream(bySandbox.link.url);
    await emu.control.advanceClock('10m');
    await sandboxStream.ended();
    app.send(keyStream.path, 'before expiry');
    expect(await keyStream.next()).toBe('data: before expiry\n\n');
    await emu.control.advanceClock('30d');
    await keyStream.ended();
    await app.streamClosed(keyStream.path);
  });

  it('forwards a WebSocket upgrade, and cuts the connection when its key is revoked', async () => {
    const {key, link} = await setUp();
    const before = app.upgradesClosed.length;
    const ws = await openWebSocket(link.url, 'socket');
    expect(ws.head).toMatch(/^HTTP\/1\.1 101 /);
    expect(ws.head).toContain('Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=');
    await ws.echo('hello through the link');
    await emu.control.revokeKey(key.id);
    await ws.closed;
    await app.upgradesClosed[before];
    const refused = await openWebSocket(link.url, 'socket');
    expect(refused.head).toMatch(/^HTTP\/1\.1 403 /);
  });

  it('answers 504 when the app does not start answering in time', async () => {
    const {link} = await setUp();
    const res = await localhostFetch(`${link.url}silent`);
    expect(res.status).toBe(504);
    const body = (await res.json()) as {error: {code: string; message: string}};
    expect(body.error.code).toBe('gateway_timeout');
    expect(body.error.message).toContain(`port ${app.port} of the sandbox did not start answering`);
  });

  it('tells the app where a request came from itself, replacing what the client claimed', async () => {
    const {link} = await setUp();
    const res = await localhostFetch(`${link.url}headers`, {
      headers: {
        forwarded: 'for=203.0.113.9;host=bank.example;proto=https',
        'x-forwarded-for': '203.0.113.9',
        'x-forwarded-host': 'bank.example',
        'x-forwarded-proto': 'https',
        'x-forwarded-port': '443',
        'x-real-ip': '203.0.113.9',
      },
    });
    const {headers} = (await res.json()) as {headers: Record<string, string>};
    const host = new URL(link.url).host;
    expect(headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(headers['x-forwarded-host']).toBe(host);
    expect(headers['x-forwarded-proto']).toBe('http');
    expect(headers.forwarded).toBe(`for=127.0.0.1;host="${host}";proto=http`);
    expect(headers['x-forwarded-port']).toBeUndefined();
    expect(headers['x-real-ip']).toBeUndefined();
    expect(JSON.stringify(headers)).not.toContain('203.0.113.9');
  });

  it('logs each request through a link, without its token', async () => {
    const {link} = await setUp();
    const token = new URL(link.url).pathname.split('/')[2] as string;
    const after = (await emu.control.logs()).last;
    expect((await localhostFetch(`${link.url}logged/path?q=1`)).status).toBe(200);
    const entries = (await emu.control.logs({after})).data;
    expect(entries).toEqual([
      expect.objectContaining({method: 'GET', path: '/_links/…/logged/path', status: 200}),
    ]);
    expect(JSON.stringify((await emu.control.logs()).data)).not.toContain(token);
  });

  it('serves a port session at its own name only, and nothing else there', async () => {
    const {link} = await setUp();
    const other = await setUp();
    const url = new URL(link.url);
    const port = Number(url.port);
    // At the account page's own name and at the loopback names, the browser is sent to the link's own name.
    for (const origin of [accountOrigin(port), emu.apiUrl, `http://localhost:${port}`]) {
      const res = await localhostFetch(`${origin}${url.pathname}x?y=1`, {redirect: 'manual'});
      expect(res.status, origin).toBe(308);
      expect(res.headers.get('location'), origin).toBe(`${url.origin}${url.pathname}x?y=1`);
      expect(await res.text(), origin).not.toContain('headers');
    }
    // At the link's own name: nothing of the page, the mailbox, the control surface or another link.
    for (const path of ['/account/mailbox', '/account', '/_emulator/openapi.json', '/v1/webhooks', '/']) {
      const res = await localhostFetch(`${url.origin}${path}`, {redirect: 'manual'});
      expect(res.status, path).toBe(404);
    }
    const otherPath = new URL(other.link.url).pathname;
    expect((await localhostFetch(`${url.origin}${otherPath}`)).status).toBe(404);
  });
});
