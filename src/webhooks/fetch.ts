// @svc/webhooks/fetch: one handler from Request to Response, for Hono, Next.js route handlers, Bun, Deno
// and workers with node:crypto (Cloudflare's nodejs_compat).
//
//   import {createFetchHandler} from '@svc/webhooks/fetch';
//   const receive = createFetchHandler({secret: process.env.SVC_WEBHOOK_SECRET, onEvent: (event) => …});
//   export const POST = receive;                          // Next.js app router
//   app.post('/webhooks', (c) => receive(c.req.raw));     // Hono
import {DELIVERY_HEADERS} from '../definitions.js';
import {
  ANSWER_CONTENT_TYPE,
  HANDLER_FAILED_BODY,
  maxBodyBytesOf,
  tooLargeBody,
  WebhookReceiver,
  type WebhookReceiverOptions,
} from './receiver.js';

export type {DeliveryContext, WebhookEventHandler, WebhookReceiverOptions} from './receiver.js';

export interface FetchHandlerOptions extends WebhookReceiverOptions {
  /** Bodies larger than this are refused with 413. Default 1 MiB. */
  maxBodyBytes?: number;
}

function answer(status: number, body: string, extra?: Record<string, string>): Response {
  // A fresh headers object each time: some servers (@hono/node-server) add content-length to the one given.
  return new Response(body, {status, headers: {'content-type': ANSWER_CONTENT_TYPE, ...extra}});
}

/**
 * 200 for a handled or duplicate event, 400 with the reason when verification fails, 500 when onEvent
 * throws (told to onError; the sender retries), 405 for anything but POST, 413 past maxBodyBytes.
 * The request's body must not have been read before: the signature covers its bytes as sent.
 */
export function createFetchHandler(options: FetchHandlerOptions): (request: Request) => Promise<Response> {
  const receiver = new WebhookReceiver(options);
  const limit = maxBodyBytesOf(options.maxBodyBytes);
  const tooLarge = tooLargeBody(limit);
  return async (request) => {
    if (request.method !== 'POST') {
      return answer(
        405,
        '{"error":{"code":"method_not_allowed","message":"webhook deliveries are POST requests"}}',
        {allow: 'POST'},
      );
    }
    if (request.bodyUsed) {
      throw new TypeError(
        'svc webhooks: the request body was already read (request.json() or a body parser ran first); ' +
          'pass the untouched Request: the signature covers its bytes as sent.',
      );
    }
    const headers = request.headers;
    if (Number(headers.get('content-length')) > limit) return answer(413, tooLarge);
    const payload = new Uint8Array(await request.arrayBuffer());
    if (payload.length > limit) return answer(413, tooLarge);
    try {
      const outcome = await receiver.receive({
        payload,
        signature: headers.get(DELIVERY_HEADERS.signature),
        deliveryId: headers.get(DELIVERY_HEADERS.deliveryId),
        attempt: headers.get(DELIVERY_HEADERS.attempt),
      });
      return answer(outcome.status, outcome.body);
    } catch (err) {
      receiver.onError(err, 'handler_failed');
      return answer(500, HANDLER_FAILED_BODY);
    }
  };
}
