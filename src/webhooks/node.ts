// @svc/webhooks/node: a receiver for node:http. It reads the raw body itself, so nothing can parse it first.
//
//   import {createServer} from 'node:http';
//   import {createNodeHandler} from '@svc/webhooks/node';
//   createServer(createNodeHandler({secret: process.env.SVC_WEBHOOK_SECRET, onEvent: (event) => …})).listen(3000);
import type {IncomingMessage, ServerResponse} from 'node:http';
import {
  answerDelivery,
  BodyTooLargeError,
  METHOD_NOT_ALLOWED_BODY,
  readRawBody,
  writeAnswer,
} from './node-http.js';
import {
  HANDLER_FAILED_BODY,
  maxBodyBytesOf,
  tooLargeBody,
  WebhookReceiver,
  type WebhookReceiverOptions,
} from './receiver.js';

export type {DeliveryContext, WebhookEventHandler, WebhookReceiverOptions} from './receiver.js';

export interface NodeHandlerOptions extends WebhookReceiverOptions {
  /** Bodies larger than this are refused with 413 without being read further. Default 1 MiB. */
  maxBodyBytes?: number;
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
