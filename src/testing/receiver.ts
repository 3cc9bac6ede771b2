// A real webhook receiver on loopback for a test file: an HTTP server that verifies each request's Svc-Signature
// with the endpoint's secret (the receiver library's own check) and records what it verified, answering as the
// test says. Waiting for a delivery goes through the emulator (control.waitForDelivery), not through this.
import {createServer, type IncomingHttpHeaders} from 'node:http';
import type {AddressInfo} from 'node:net';
import {DELIVERY_HEADERS} from '../definitions.js';
import {verifySignature} from '@svc/webhooks';

/** One request the receiver verified. */
export interface ReceivedDelivery {
  /** Svc-Delivery-Id, Svc-Event-Id and the attempt number, as sent. */
  deliveryId: string | undefined;
  eventId: string | undefined;
  attempt: number | undefined;
  /** The raw body and the parsed event. */
  body: string;
  event: unknown;
  headers: IncomingHttpHeaders;
  /** The status the receiver answered with. */
  status: number;
}

export interface TestReceiver extends AsyncDisposable {
  /** Where the endpoint posts (http://127.0.0.1:<port>/webhooks). */
  readonly url: string;
  /** Every request whose signature verified, in arrival order. */
  readonly deliveries: readonly ReceivedDelivery[];
  /** Requests refused because their signature did not verify (answered 400). */
  readonly rejected: number;
  /** The status (or a function of the delivery) to answer verified requests with; 200 by default. */
  respondWith(status: number | ((delivery: Omit<ReceivedDelivery, 'status'>) => number)): void;
  /** Sets the signing secret requests are verified with (the fixture sets the endpoint's). */
  setSecret(secret: string): void;
  close(): Promise<void>;
}

export interface TestReceiverOptions {
  /** The signing secret; may be set later with setSecret (the endpoint's is known once it is made). */
  secret?: string;
  /** Largest distance between a signature's `t` and now, seconds (default: the library's). */
  toleranceSeconds?: number;
}

export async function startTestReceiver(options: TestReceiverOptions = {}): Promise<TestReceiver> {
  let secret = options.secret;
  let respond: (d: Omit<ReceivedDelivery, 'status'>) => number = () => 200;
  const deliveries: ReceivedDelivery[] = [];
  let rejected = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      try {
        if (!secret) throw new Error('no signing secret yet');
        verifySignature({
          secret,
          header: String(req.headers[DELIVERY_HEADERS.signature.toLowerCase()] ?? ''),
          payload: body,
          toleranceSeconds: options.toleranceSeconds,
        });
      } catch {
        rejected += 1;
        res.writeHead(400).end();
        return;
      }
      const header = (name: string) => {
        const v = req.headers[name.toLowerCase()];
        return typeof v === 'string' ? v : undefined;
      };
      const attempt = Number(header(DELIVERY_HEADERS.attempt));
      const received = {
        deliveryId: header(DELIVERY_HEADERS.deliveryId),
        eventId: header(DELIVERY_HEADERS.eventId),
        attempt: Number.isFinite(attempt) ? attempt : undefined,
        body,
        event: parseJson(body),
        headers: req.headers,
      };
      const status = respond(received);
      deliveries.push({...received, status});
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const {port} = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    return closing;
  };
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    deliveries,
    get rejected() {
      return rejected;
    },
    respondWith(status) {
      respond = typeof status === 'number' ? () => status : status;
    },
    setSecret(s) {
      secret = s;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
