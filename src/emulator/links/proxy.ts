// A port session's forwarding: one HTTP request to a port of the emulator's host (the developer's machine plays the
// sandbox), streamed both ways, the body bytes untouched (no decompression, no re-encoding).
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

const SANDBOX_HOST = '127.0.0.1';

function passOn(name: string, listedInConnection: Set<string>): boolean {
  return !HOP_BY_HOP.has(name) && !listedInConnection.has(name);
}

function connectionTokens(value: string | string[] | null | undefined): Set<string> {
  const text = Array.isArray(value) ? value.join(',') : (value ?? '');
  return new Set(
    text
      .split(',')
      .map((t) => t.trim().toLowerCase())
      .filter(Boolean),
  );
}

export interface ForwardInput {
  request: Request;
  port: number;
  /** Path and query on the sandbox, starting with `/`. */
  path: string;
  clientAddress: string;
}

export function forward(input: ForwardInput): Promise<Response> {
  const {request, port} = input;
  const listed = connectionTokens(request.headers.get('connection'));
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    if (passOn(name, listed)) headers[name] = value;
  });
  headers.host = `${SANDBOX_HOST}:${port}`;
  headers['x-forwarded-proto'] = new URL(request.url).protocol.replace(':', '');
  headers['x-forwarded-host'] = request.headers.get('host') ?? '';
  const earlier = request.headers.get('x-forwarded-for');
  headers['x-forwarded-for'] = earlier ? `${earlier}, ${input.clientAddress}` : input.clientAddress;
  headers[FORWARDED_MARK] = '1';

  return new Promise<Response>((resolve, reject) => {
    const outgoing = httpRequest(
      {host: SANDBOX_HOST, port, method: request.method, path: input.path, headers},
      (incoming) => {
        const status = incoming.statusCode ?? 0;
        if (status < 200 || status > 599) {
          incoming.destroy();
          reject(
            new HttpError(502, 'bad_gateway', `port ${port} of the sandbox answered with status ${status}`),
          );
          return;
        }
        resolve(toResponse(request.method, status, incoming.headers, incoming));
      },
    );
    outgoing.on('error', (err: NodeJS.ErrnoException) => reject(unreachable(port, err)));
    const abort = () => outgoing.destroy();
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

function unreachable(port: number, err: NodeJS.ErrnoException): HttpError {
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
