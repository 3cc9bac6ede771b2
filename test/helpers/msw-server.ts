// Serves msw handlers on a real loopback port, so spawned CLI processes (which msw cannot intercept)
// talk to exactly the same mock as in-process clients.
import {createServer, type IncomingMessage} from 'node:http';
import type {AddressInfo} from 'node:net';
import {getResponse, type RequestHandler} from 'msw';

export interface LoopbackServer {
  url: string;
  /** Authorization headers of every request received, in order. */
  authorizations: string[];
  close(): Promise<void>;
}

async function toRequest(req: IncomingMessage, origin: string): Promise<Request> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) for (const v of value) headers.append(name, v);
  }
  const body =
    chunks.length > 0 && req.method !== 'GET' && req.method !== 'HEAD' ? Buffer.concat(chunks) : undefined;
  return new Request(new URL(req.url ?? '/', origin), {method: req.method, headers, body});
}

/** A loopback HTTP server answering from `handlers`, or 404 in the contract's error shape when none matches. */
export async function serveHandlers(
  handlers: RequestHandler[],
  options: {host?: string} = {},
): Promise<LoopbackServer> {
  const authorizations: string[] = [];
  let origin = '';
  const server = createServer((req, res) => {
    authorizations.push(req.headers.authorization ?? '');
    toRequest(req, origin)
      .then((request) => getResponse(handlers, request))
      .then(async (response) => {
        const answer =
          response ?? Response.json({error: {code: 'not_found', message: 'no such route'}}, {status: 404});
        res.writeHead(answer.status, Object.fromEntries(answer.headers));
        res.end(Buffer.from(await answer.arrayBuffer()));
      })
      .catch((err: Error) => {
        res.writeHead(500, {'content-type': 'application/json'});
        res.end(JSON.stringify({error: {code: 'internal', message: err.message}}));
      });
  });
  // '::' (dual stack) lets one server answer 127.0.0.1, [::1] and localhost alike.
  await new Promise<void>((resolve) => server.listen(0, options.host ?? '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: origin,
    authorizations,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
