// A loopback HTTP proxy in front of a server that keeps every exchange (method, path, status, headers and
// body of the answer), so a suite can check afterwards what really went over the wire.
import {createServer, request} from 'node:http';
import type {AddressInfo} from 'node:net';

export interface Exchange {
  method: string;
  /** Path and query, as asked. */
  url: string;
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface RecordingProxy {
  url: string;
  exchanges: Exchange[];
  close(): Promise<void>;
}

export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const to = new URL(target);
  const exchanges: Exchange[] = [];
  const server = createServer((req, res) => {
    const upstream = request(
      {host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers},
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          res.write(chunk);
        });
        answer.on('end', () => {
          res.end();
          const headers: Record<string, string> = {};
          for (const [name, value] of Object.entries(answer.headers)) {
            if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
          }
          exchanges.push({
            method: req.method ?? 'GET',
            url: req.url ?? '/',
            status: answer.statusCode ?? 0,
            headers,
            body: Buffer.concat(chunks).toString('utf8'),
          });
        });
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const {port} = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    exchanges,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
