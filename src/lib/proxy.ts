// Requests through the proxy named by HTTPS_PROXY / HTTP_PROXY (and not for hosts in NO_PROXY), as company
// networks and CI runners require. undici loads only when one of them is set, so without a proxy a command
// starts exactly as before. This machine's own addresses never go through a proxy.
import {isLoopbackHost, type FetchLike, type ResponseLike} from '@svc/client';

const MAX_BODY_BYTES = 16 * 1024 * 1024;

export interface ProxyEnv {
  httpProxy?: string;
  httpsProxy?: string;
  noProxy?: string;
}

function first(env: NodeJS.ProcessEnv, names: string[]): string | undefined {
  for (const name of names) {
    const value = env[name];
    if (value !== undefined && value !== '') return value;
  }
  return undefined;
}

/** The proxy settings in `env` (lowercase names win, as in curl), or undefined when no proxy is set. */
export function proxyEnv(env: NodeJS.ProcessEnv): ProxyEnv | undefined {
  const httpProxy = first(env, ['http_proxy', 'HTTP_PROXY']);
  const httpsProxy = first(env, ['https_proxy', 'HTTPS_PROXY']);
  if (!httpProxy && !httpsProxy) return undefined;
  return {httpProxy, httpsProxy, noProxy: first(env, ['no_proxy', 'NO_PROXY'])};
}

/**
 * True for localhost, 127.0.0.0/8 and [::1], whatever NO_PROXY says: plain http is allowed to them only because
 * the key never leaves the machine, and a proxy would carry it away in clear (and a proxy that refuses CONNECT
 * would make a running emulator look down).
 */
export function bypassesProxy(hostname: string): boolean {
  return isLoopbackHost(hostname) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/** A fetch for the client that goes through the proxy (undici's EnvHttpProxyAgent applies NO_PROXY). */
export function proxyFetch(settings: ProxyEnv): FetchLike {
  let dispatcher: Promise<{
    request: typeof import('undici').request;
    agent: import('undici').Dispatcher;
  }>;
  return async (input, init) => {
    dispatcher ??= import('undici').then(({EnvHttpProxyAgent, request}) => ({
      request,
      // Empty strings, not undefined: undefined would make undici read process.env itself.
      agent: new EnvHttpProxyAgent({
        httpProxy: settings.httpProxy ?? '',
        httpsProxy: settings.httpsProxy ?? settings.httpProxy ?? '',
        noProxy: settings.noProxy ?? '',
      }),
    }));
    const {request, agent} = await dispatcher;
    const res = await request(input, {
      method: (init.method ?? 'GET') as 'GET',
      headers: init.headers as Record<string, string>,
      signal: init.signal ?? undefined,
      dispatcher: agent,
    });
    let body: Promise<string> | undefined;
    const response: ResponseLike = {
      ok: res.statusCode >= 200 && res.statusCode < 300,
      status: res.statusCode,
      headers: {
        get(name: string) {
          const value = res.headers[name.toLowerCase()];
          if (value === undefined) return null;
          return Array.isArray(value) ? value.join(', ') : value;
        },
      },
      text() {
        body ??= (async () => {
          const chunks: Buffer[] = [];
          let size = 0;
          for await (const chunk of res.body) {
            size += (chunk as Buffer).length;
            if (size > MAX_BODY_BYTES) {
              res.body.destroy();
              throw new Error('the answer is larger than any svc API answer');
            }
            chunks.push(chunk as Buffer);
          }
          return Buffer.concat(chunks).toString('utf8');
        })();
        return body;
      },
      body: {
        async cancel() {
          res.body.destroy();
        },
      },
    };
    return response;
  };
}
