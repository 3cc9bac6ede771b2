// A GET through node:http rather than fetch, for what fetch cannot choose: the local address a request comes
// from (per-address rate limits), a keep-alive agent shared by many requests, or a Host header of its own.
import {type Agent, request as httpRequest} from 'node:http';

export interface RawAnswer {
  status: number;
  retryAfter?: string;
  body: string;
}

export function rawGet(
  url: URL,
  o: {authorization?: string; agent?: Agent; localAddress?: string; headers?: Record<string, string>} = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, {
      agent: o.agent,
      localAddress: o.localAddress,
      headers: {...(o.authorization ? {authorization: o.authorization} : {}), ...o.headers},
    });
    req.on('response', (res) => {
      let body = '';
      res.on('data', (d) => {
        body += d;
      });
      res.on('end', () =>
        resolve({status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] as string, body}),
      );
    });
    req.on('error', reject);
    req.end();
  });
}
