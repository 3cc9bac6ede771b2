// What the node:http handler and the Express middleware share: the raw body read up to a limit, the answer
// written, a delivery verified and answered. Inside the package only: no entry exports it.
import type {IncomingMessage, ServerResponse} from 'node:http';
import {DELIVERY_HEADERS} from '../definitions.js';
import {ANSWER_CONTENT_TYPE, type ReceiveOutcome, type WebhookReceiver} from './receiver.js';

/** The delivery headers the receiver reads, as node:http keys them (lowercase). */
const SIGNATURE = DELIVERY_HEADERS.signature.toLowerCase();
const DELIVERY_ID = DELIVERY_HEADERS.deliveryId.toLowerCase();
const ATTEMPT = DELIVERY_HEADERS.attempt.toLowerCase();

export class BodyTooLargeError extends Error {
  readonly code = 'payload_too_large';
  constructor(readonly limit: number) {
    super(`the request body is larger than ${limit} bytes`);
    this.name = 'BodyTooLargeError';
  }
}

/** The body's bytes exactly as received; rejects with BodyTooLargeError past `limit`. */
export function readRawBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (declared > limit) return Promise.reject(new BodyTooLargeError(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        req.resume(); // drain the rest so the answer can still be written
        reject(new BodyTooLargeError(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    const onError = (err: Error) => {
      cleanup();
      reject(err);
    };
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

export function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Writes a receiver answer; `body` is already JSON. */
export function writeAnswer(
  res: ServerResponse,
  status: number,
  body: string,
  headers?: Record<string, string>,
) {
  res.writeHead(status, {
    'content-type': ANSWER_CONTENT_TYPE,
    'content-length': Buffer.byteLength(body),
    ...headers,
  });
  res.end(body);
}

export const METHOD_NOT_ALLOWED_BODY =
  '{"error":{"code":"method_not_allowed","message":"webhook deliveries are POST requests"}}';

/** Verifies and handles a delivery whose raw body is already read; answers on `res`. */
export async function answerDelivery(
  receiver: WebhookReceiver,
  req: IncomingMessage,
  res: ServerResponse,
  payload: Buffer | string,
): Promise<ReceiveOutcome> {
  const headers = req.headers;
  const outcome = await receiver.receive({
    payload,
    signature: headers[SIGNATURE],
    deliveryId: headerValue(headers[DELIVERY_ID]),
    attempt: headerValue(headers[ATTEMPT]),
  });
  writeAnswer(res, outcome.status, outcome.body);
  return outcome;
}
