// A receiver that holds each request open until the test lets it go: a slow receiver without sleeps. Every
// arrival is recorded at once, and a test can wait for the next one.
import {createServer, type IncomingHttpHeaders, type ServerResponse} from 'node:http';
import type {AddressInfo} from 'node:net';

export interface HeldRequest {
  headers: IncomingHttpHeaders;
  body: string;
}

export interface HoldReceiver {
  url: string;
  /** Every request that arrived, held or answered, in order. */
  arrivals: HeldRequest[];
  /** Resolves once `count` requests have arrived. */
  arrived(count: number): Promise<void>;
  /** Answers every request held now with 200; those arriving later are held again unless `holding` is off. */
  release(): void;
  /** Off: requests are answered at once (after the ones held are let go). */
  holding: boolean;
  close(): Promise<void>;
}

export async function startHoldReceiver(): Promise<HoldReceiver> {
  const arrivals: HeldRequest[] = [];
  const held: ServerResponse[] = [];
  const waiters: {count: number; resolve: () => void}[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      arrivals.push({headers: req.headers, body: Buffer.concat(chunks).toString('utf8')});
      for (const w of waiters.filter((x) => arrivals.length >= x.count)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
      if (receiver.holding) held.push(res);
      else res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const receiver: HoldReceiver = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrivals,
    holding: true,
    arrived: (count) =>
      arrivals.length >= count
        ? Promise.resolve()
        : new Promise<void>((resolve) => waiters.push({count, resolve})),
    release() {
      for (const res of held.splice(0)) res.end('ok');
    },
    close: () =>
      new Promise<void>((resolve) => {
        receiver.release();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return receiver;
}
