// @svc/webhooks/node: a receiver for node:http. It reads the raw body itself, so nothing can parse it first.
//
//   import {createServer} from 'node:http';
//   import {createNodeHandler} from '@svc/webhooks/node';
//   createServer(createNodeHandler({secret: process.env.SVC_WEBHOOK_SECRET, onEvent: (event) => …})).listen(3000);
import type {IncomingMessage, ServerResponse} from 'node:http';
import {
  ANSWER_CONTENT_TYPE,
  HANDLER_FAILED_BODY,
  maxBodyBytesOf,
  type ReceiveOutcome,
  tooLargeBody,
  WebhookReceiver,
  type WebhookReceiverOptions,
} from './receiver.js';

export type {DeliveryContext, WebhookEventHandler, WebhookReceiverOptions} from './receiver.js';
export {maxBodyBytesOf, tooLargeBody, WebhookReceiver} from './receiver.js';

export interface NodeHandlerOptions extends WebhookReceiverOptions {
  /** Bodies larger than this are refused with 413 without being read further. Default 1 MiB. */
  maxBodyBytes?: number;
}

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

const METHOD_NOT_ALLOWED_BODY =
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
    signature: headers['svc-signature'],
    deliveryId: headerValue(headers['svc-delivery-id']),
    attempt: headerValue(headers['svc-delivery-attempt']),
  });
  writeAnswer(res, outcome.status, outcome.body);
  return outcome;
}

/**
 * A `(req, res)` handler for http.createServer or any router that hands over node's request: 200 for a
 * handled or duplicate event, 400 with the reason for a delivery that fails verification, 500 when
 * onEvent throws (the sender retries), 405 for anything but POST, 413 past maxBodyBytes.
 */
export function createNodeHandler(
  options: NodeHandlerOptions,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const receiver = new WebhookReceiver(options);
  const limit = maxBodyBytesOf(options.maxBodyBytes);
  return async (req, res) => {
    if (req.method !== 'POST') {
      writeAnswer(res, 405, METHOD_NOT_ALLOWED_BODY, {allow: 'POST'});
      return;
    }
    let payload: Buffer;
    try {
      payload = await readRawBody(req, limit);
    } catch (err) {
      if (err instanceof BodyTooLargeError) writeAnswer(res, 413, tooLargeBody(limit), {connection: 'close'});
      else res.destroy(); // the client went away mid-body: nobody is left to answer
      return;
    }
    try {
      await answerDelivery(receiver, req, res, payload);
    } catch (err) {
      receiver.onError(err, 'handler_failed');
      if (!res.headersSent) writeAnswer(res, 500, HANDLER_FAILED_BODY);
    }
  };
}
