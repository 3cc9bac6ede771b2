// The loopback app behind port sessions in link tests, and clients of it through a link: an event stream, a
// WebSocket (a raw upgrade over a socket), a path that never answers and one that echoes the request's headers.
import {createHash} from 'node:crypto';
import {createServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http';
import {type AddressInfo, connect, type Socket} from 'node:net';
import type {Duplex} from 'node:stream';
import {expect} from 'vitest';
import {localhostFetch} from '../helpers/localhost-fetch.js';

const WS_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

/** The loopback app behind the port sessions: an event stream, a WebSocket echo, a silent path, a header echo. */
export interface App {
  port: number;
  /** Resolves when the app sees the stream at `path` closed by the emulator. */
  streamClosed(path: string): Promise<void>;
  send(path: string, data: string): void;
  upgradesClosed: Promise<void>[];
  close(): Promise<void>;
}

export async function startApp(): Promise<App> {
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
export async function openStream(url: string) {
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
export async function openWebSocket(linkUrl: string, path: string) {
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
