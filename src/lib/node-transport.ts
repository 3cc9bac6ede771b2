// A fetch-compatible GET over node:http(s), for the CLI: Node's built-in fetch loads and compiles all of
// undici on first use, which costs a short-lived command more than the whole request.
import type {IncomingMessage} from 'node:http';
import {bypassesProxy, proxyEnv, proxyFetch} from './proxy.js';
import type {FetchLike, ResponseLike} from '@svc/client';

/** Far beyond any list the API returns (MAX_DELIVERIES_LISTED deliveries); protects against an endless body. */
const MAX_BODY_BYTES = 16 * 1024 * 1024;

export function nodeHttpFetch(env: NodeJS.ProcessEnv = process.env): FetchLike {
  const proxy = proxyEnv(env);
  if (!proxy) return directFetch;
  const proxied = proxyFetch(proxy);
  return (input, init) =>
    bypassesProxy(new URL(input).hostname) ? directFetch(input, init) : proxied(input, init);
}

const directFetch: FetchLike = async (input, init) => {
  const url = new URL(input);
  // The module object, read at call time: tools that wrap http.request (msw, proxies, tracing) see the call.
  const http =
    url.protocol === 'https:' ? (await import('node:https')).default : (await import('node:http')).default;
  return new Promise<ResponseLike>((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: init.method ?? 'GET',
        headers: {...(init.headers as Record<string, string>), connection: 'close'},
        signal: init.signal ?? undefined,
        // No pooled sockets: a one-shot command should exit the moment it is done.
        agent: false,
      },
      (res) => resolve(toResponse(res)),
    );
    req.on('error', reject);
    req.end();
  });
};

function toResponse(res: IncomingMessage): ResponseLike {
  const status = res.statusCode ?? 0;
  let body: Promise<string> | undefined;
  const text = () => {
    body ??= new Promise<string>((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_BODY_BYTES) {
          res.destroy(new Error('the answer is larger than any svc API answer'));
          return;
        }
        chunks.push(chunk);
      });
      res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      res.on('error', reject);
    });
    return body;
  };
  return {
    ok: status >= 200 && status < 300,
    status,
    headers: {
      get(name: string) {
        const value = res.headers[name.toLowerCase()];
        if (value === undefined) return null;
        return Array.isArray(value) ? value.join(', ') : value;
      },
    },
    text,
    body: {
      async cancel() {
        res.destroy();
      },
    },
  };
}
