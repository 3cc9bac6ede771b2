// Upgraded connections (WebSocket) through a port session. Node hands a request asking to upgrade to the server's
// `upgrade` listener with its socket, outside the usual request path; `acceptUpgrades` sends it down that path
// anyway, so the Host check, the request log and the routes see it like any other request. A port session takes
// the socket over (`takeUpgrade`) and joins it to the app's; any other route answers it as a plain request.
import {realTimers, type Timers} from '../delivery/timers.js';
import {
  request as httpRequest,
  type IncomingMessage,
  type Server,
  ServerResponse,
  STATUS_CODES,
} from 'node:http';
import type {Socket} from 'node:net';
import type {Duplex} from 'node:stream';
import {HttpError} from '../http-error.js';
import {type ForwardedBy, SANDBOX_HOST, unreachable, upstreamHeaders} from './proxy.js';

interface Held {
  socket: Duplex;
  head: Buffer;
}

const held = new WeakMap<object, Held>();

/** Serves upgrade requests through the server's usual request listener, their sockets kept for `takeUpgrade`. */
export function acceptUpgrades(server: Server): void {
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    if (req.method !== 'GET') {
      // The body of such a request is no longer read by Node's parser; none of the routes expects one.
      writeRaw(socket, 400, {
        error: {code: 'invalid_request', message: 'only a GET request may ask to upgrade its connection'},
      });
      return;
    }
    held.set(req, {socket, head});
    const res = new ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket as Socket);
    res.once('finish', () => {
      res.detachSocket(socket as Socket);
      socket.end();
    });
    req.push(null);
    server.emit('request', req, res);
  });
}

/** The socket of an upgrade request, now the caller's to answer on; undefined for any other request. */
export function takeUpgrade(incoming: unknown): Held | undefined {
  if (typeof incoming !== 'object' || incoming === null) return undefined;
  const found = held.get(incoming);
  held.delete(incoming);
  return found;
}

export interface TunnelInput extends Held {
  request: Request;
  port: number;
  path: string;
  by: ForwardedBy;
  answerTimeoutMs: number;
  /** The real-time wait for the app's first answer (default: the real timers). */
  timers?: Timers;
  /** Holds the connection as open traffic of its link until it closes; `cut` ends it at once. Returns the release. */
  hold(cut: (error: HttpError) => void): () => void;
}

/**
 * Asks the app to upgrade too and, when it agrees, joins the two connections. Resolves with the status the client
 * was answered (101 when joined).
 */
export function tunnel(input: TunnelInput): Promise<number> {
  const {socket, port} = input;
  const headers = upstreamHeaders(input.request, port, input.by, ['upgrade']);
  headers.connection = 'Upgrade';
  return new Promise<number>((resolve) => {
    let upstream: Duplex | undefined;
    let settled = false;
    const settle = (status: number) => {
      settled = true;
      cancelWait();
      resolve(status);
    };
    const refuse = (error: HttpError) => {
      if (settled) return;
      settle(error.status);
      outgoing.destroy();
      release();
      writeRaw(socket, error.status, error.toResponse(), error.headers);
    };
    const release = input.hold((error) => {
      if (!upstream) refuse(error);
      else {
        socket.destroy();
        upstream.destroy();
      }
    });
    const cancelWait = (input.timers ?? realTimers).setTimeout(
      () =>
        refuse(
          new HttpError(
            504,
            'gateway_timeout',
            `port ${port} of the sandbox did not start answering within ${input.answerTimeoutMs / 1000} s`,
          ),
        ),
      input.answerTimeoutMs,
    );
    const outgoing = httpRequest({host: SANDBOX_HOST, port, method: 'GET', path: input.path, headers});
    outgoing.on('error', (err: NodeJS.ErrnoException) => refuse(unreachable(port, err)));
    outgoing.on('upgrade', (res: IncomingMessage, up: Duplex, upHead: Buffer) => {
      if (settled) {
        up.destroy();
        return;
      }
      settle(101);
      upstream = up;
      socket.write(`HTTP/1.1 101 Switching Protocols\r\n${headerLines(res.rawHeaders)}\r\n`);
      if (upHead.length > 0) socket.write(upHead);
      if (input.head.length > 0) up.write(input.head);
      const close = () => {
        socket.destroy();
        up.destroy();
        release();
      };
      up.on('error', close).on('close', close);
      socket.on('close', close);
      socket.pipe(up).pipe(socket);
    });
    outgoing.on('response', (res: IncomingMessage) => {
      // The app answered without upgrading: its answer goes back as it is, and the connection ends with it.
      if (settled) {
        res.destroy();
        return;
      }
      settle(res.statusCode ?? 502);
      socket.write(
        `HTTP/1.1 ${res.statusCode} ${STATUS_CODES[res.statusCode ?? 0] ?? ''}\r\n` +
          `${headerLines(res.rawHeaders, ['connection', 'keep-alive', 'transfer-encoding', 'content-length'])}` +
          'Connection: close\r\n\r\n',
      );
      res.on('close', release);
      res.pipe(socket);
    });
    outgoing.end();
  });
}

function headerLines(raw: string[], leaveOut: readonly string[] = []): string {
  let lines = '';
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] as string;
    if (leaveOut.includes(name.toLowerCase())) continue;
    lines += `${name}: ${(raw[i + 1] as string).replace(/[\r\n]/g, ' ')}\r\n`;
  }
  return lines;
}

/** An answer written straight on a socket no HTTP response owns, closing it after. */
function writeRaw(
  socket: Duplex,
  status: number,
  body: Response | object,
  extra: Record<string, string> = {},
): void {
  const send = (text: string) => {
    const head = [
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`,
      'Content-Type: application/json; charset=UTF-8',
      `Content-Length: ${Buffer.byteLength(text)}`,
      'Cache-Control: no-store',
      'Connection: close',
      ...Object.entries(extra).map(([k, v]) => `${k}: ${v}`),
    ].join('\r\n');
    socket.end(`${head}\r\n\r\n${text}`);
  };
  if (body instanceof Response) body.text().then(send, () => socket.destroy());
  else send(JSON.stringify(body));
}
