// A port session's forwarding: one HTTP request to a port of the emulator's host (the developer's machine plays the
// sandbox), streamed both ways, the body bytes untouched (no decompression, no re-encoding).
import {realTimers, type Timers} from '../delivery/timers.js';
import {type IncomingHttpHeaders, request as httpRequest} from 'node:http';
import {Readable} from 'node:stream';
import {HttpError} from '../http-error.js';

/** Marks a request a port session sent, so one forwarded back into a link URL is refused instead of looping. */
export const FORWARDED_MARK = 'svc-port-session';

/** Meaningful for one connection only (RFC 9110 §7.6.1); never passed on. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
]);

export const SANDBOX_HOST = '127.0.0.1';

export function passOn(name: string, listedInConnection: Set<string>): boolean {
  return !HOP_BY_HOP.has(name) && !listedInConnection.has(name);
}

export function connectionTokens(value: string | string[] | null | undefined): Set<string> {
  const text = Array.isArray(value) ? value.join(',') : (value ?? '');
  return new Set(
    text
      .split(',')
      .map((t) => t.trim().toLowerCase())
      .filter(Boolean),
  );
}

/** Headers a client may send to claim where a request came from: never passed on, the emulator says it instead. */
function claimsOrigin(name: string): boolean {
  return name === 'forwarded' || name.startsWith('x-forwarded-') || name === 'x-real-ip';
}

/** What a port session tells the app of the request it forwards, in place of anything the client claimed. */
export interface ForwardedBy {
  clientAddress: string;
  /** The Host the client addressed (the port session's own name). */
  host: string;
  proto: string;
}

/** The headers sent to the app: the client's, less hop-by-hop and origin claims, with the emulator's own. */
export function upstreamHeaders(
  request: Request,
  port: number,
  by: ForwardedBy,
  keep: readonly string[] = [],
): Record<string, string> {
  const listed = connectionTokens(request.headers.get('connection'));
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    if (keep.includes(name) || (passOn(name, listed) && !claimsOrigin(name))) headers[name] = value;
  });
  headers.host = `${SANDBOX_HOST}:${port}`;
  const address = by.clientAddress.includes(':') ? `"[${by.clientAddress}]"` : by.clientAddress;
  headers.forwarded = `for=${address};host=${JSON.stringify(by.host)};proto=${by.proto}`;
  headers['x-forwarded-for'] = by.clientAddress;
  headers['x-forwarded-host'] = by.host;
  headers['x-forwarded-proto'] = by.proto;
  headers[FORWARDED_MARK] = '1';
  return headers;
}

export interface ForwardInput {
  request: Request;
  port: number;
  /** Path and query on the sandbox, starting with `/`. */
  path: string;
  by: ForwardedBy;
  /** How long the app has to start answering; then 504. */
  answerTimeoutMs: number;
  /** The real-time wait for the app's first answer (default: the real timers). */
  timers?: Timers;
  /** The connection the answer is written to, when served over HTTP: a cut closes it at once. */
  outgoing?: {destroy(): unknown; once(event: 'close', listener: () => void): unknown};
  /**
   * Holds the exchange as open traffic of its link from now until its answer has ended; `cut` ends it at once.
   * Returns the release.
   */
  hold(cut: (error: HttpError) => void): () => void;
}

/**
 * Forwards one request and streams the app's answer back. A cut before the answer starts answers the cut's error;
 * a cut while it streams closes the client's connection (and the app's).
 */
export function forward(input: ForwardInput): Promise<Response> {
  const {request, port} = input;
  const headers = upstreamHeaders(request, port, input.by);
  return new Promise<Response>((resolve, reject) => {
    let answering: Readable | undefined;
    const release = input.hold((error) => {
      if (!answering) {
        fail(error);
        return;
      }
      if (input.outgoing) {
        input.outgoing.destroy();
        input.outgoing.once('close', () => answering?.destroy());
      } else answering.destroy(error);
    });
    const fail = (error: HttpError) => {
      cancelWait();
      outgoing.destroy();
      release();
      reject(error);
    };
    const cancelWait = (input.timers ?? realTimers).setTimeout(
      () =>
        fail(
          new HttpError(
            504,
            'gateway_timeout',
            `port ${port} of the sandbox did not start answering within ${input.answerTimeoutMs / 1000} s`,
          ),
        ),
      input.answerTimeoutMs,
    );
    const outgoing = httpRequest(
      {host: SANDBOX_HOST, port, method: request.method, path: input.path, headers},
      (incoming) => {
        cancelWait();
        const status = incoming.statusCode ?? 0;
        if (status < 200 || status > 599) {
          incoming.destroy();
          fail(
            new HttpError(502, 'bad_gateway', `port ${port} of the sandbox answered with status ${status}`),
          );
          return;
        }
        answering = incoming;
        incoming.once('close', release);
        resolve(toResponse(request.method, status, incoming.headers, incoming));
      },
    );
    outgoing.on('error', (err: NodeJS.ErrnoException) => {
      if (!answering) fail(unreachable(port, err));
    });
    const abort = () => {
      outgoing.destroy();
      release();
    };
    request.signal?.addEventListener('abort', abort, {once: true});
    outgoing.on('close', () => request.signal?.removeEventListener('abort', abort));
    if (request.body) {
      const body = Readable.fromWeb(request.body as import('node:stream/web').ReadableStream);
      body.on('error', (err) => outgoing.destroy(err));
      body.pipe(outgoing);
    } else {
      outgoing.end();
    }
  });
}

function toResponse(method: string, status: number, incoming: IncomingHttpHeaders, body: Readable): Response {
  const listed = connectionTokens(incoming.connection);
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming)) {
    if (value === undefined || !passOn(name, listed)) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  const bodyless = method === 'HEAD' || status === 204 || status === 304;
  if (bodyless) body.resume();
  return new Response(bodyless ? null : (Readable.toWeb(body) as ReadableStream), {status, headers});
}

export function unreachable(port: number, err: NodeJS.ErrnoException): HttpError {
  const why =
    err.code === 'ECONNREFUSED'
      ? `nothing listens on port ${port} of the sandbox`
      : `port ${port} of the sandbox did not answer (${err.code ?? err.message})`;
  return new HttpError(
    502,
    'bad_gateway',
    `${why}; in the emulator the sandbox is this machine, so start your server on ${SANDBOX_HOST}:${port}`,
  );
}
