// @svc/webhooks/express: a route handler for Express (4 and 5) that reads the raw body itself.
//
//   import {svcWebhooks} from '@svc/webhooks/express';
//   app.post('/webhooks', svcWebhooks({secret: process.env.SVC_WEBHOOK_SECRET, onEvent: (event) => …}));
//
// Mount it before app.use(express.json()), or on a router without one: the signature covers the bytes as
// sent, and a JSON parser that ran first has thrown them away. express.raw() and express.text() before it
// are fine: they keep the bytes.
import type {IncomingMessage, ServerResponse} from 'node:http';
import type {NodeHandlerOptions} from './node.js';
import {answerDelivery, BodyTooLargeError, readRawBody, writeAnswer} from './node-http.js';
import {HANDLER_FAILED_BODY, maxBodyBytesOf, tooLargeBody, WebhookReceiver} from './receiver.js';

export type {DeliveryContext, WebhookEventHandler} from './receiver.js';
export type ExpressWebhookOptions = NodeHandlerOptions;

/** The parts of Express's request this reads; any framework's request built on node's works. */
export type ExpressLikeRequest = IncomingMessage & {body?: unknown};
export type ExpressLikeNext = (err?: unknown) => void;

/** Thrown (through next) when a body parser consumed the request before this middleware saw it. */
export class ParsedBodyError extends Error {
  readonly code = 'body_already_parsed';
  constructor(what: string) {
    super(
      `svc webhooks: ${what} before the svc webhook handler, so the raw bytes the signature covers are gone. ` +
        'Register the webhook route before app.use(express.json()) (or skip the JSON parser for this path); ' +
        'express.raw({type: "application/json", limit: "1mb"}) in front of it also works.',
    );
    this.name = 'ParsedBodyError';
  }
}

function bodyWasRead(req: IncomingMessage): boolean {
  return req.readableEnded || (req.complete && !req.readable);
}

/**
 * 200 for a handled or duplicate event, 400 with the reason when verification fails, 413 past
 * maxBodyBytes, 500 when onEvent throws (told to onError; the sender retries). A body parsed by an
 * earlier middleware is a set-up mistake: it goes to `next(err)` as a ParsedBodyError, which says how
 * to fix it, and Express answers 500 so no delivery is lost while it is fixed.
 */
export function svcWebhooks(
  options: ExpressWebhookOptions,
): (req: ExpressLikeRequest, res: ServerResponse, next: ExpressLikeNext) => void {
  const receiver = new WebhookReceiver(options);
  const limit = maxBodyBytesOf(options.maxBodyBytes);

  const handle = async (req: ExpressLikeRequest, res: ServerResponse, next: ExpressLikeNext) => {
    const body = req.body;
    let payload: Buffer | string;
    if (Buffer.isBuffer(body) || typeof body === 'string') {
      payload = body; // express.raw() or express.text(): still the bytes as sent
    } else if (bodyWasRead(req)) {
      next(
        new ParsedBodyError(
          body !== undefined && typeof body === 'object'
            ? 'a JSON body parser (express.json() or similar) already parsed the request'
            : 'another middleware already read the request body',
        ),
      );
      return;
    } else {
      try {
        payload = await readRawBody(req, limit);
      } catch (err) {
        if (err instanceof BodyTooLargeError)
          writeAnswer(res, 413, tooLargeBody(limit), {connection: 'close'});
        else next(err);
        return;
      }
    }
    try {
      await answerDelivery(receiver, req, res, payload);
    } catch (err) {
      receiver.onError(err, 'handler_failed');
      if (res.headersSent) return;
      writeAnswer(res, 500, HANDLER_FAILED_BODY);
    }
  };

  return (req, res, next) => {
    if (req.method !== 'POST') {
      next();
      return;
    }
    handle(req, res, next).catch(next);
  };
}
