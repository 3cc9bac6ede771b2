// The send step of an attempt: the request every attempt carries (the same headers whether it goes over HTTP or
// to `svc listen` through the relay), and its sending. Never throws: whatever happens is an AttemptResult.
import type {Dispatcher} from 'undici';
import {deliveryHeaders} from '../../deliver.js';
import type {WebhookSigner} from '@svc/webhooks';
import type {RelayHub} from './relay-hub.js';
import type {ClaimedDelivery} from './claim.js';
import {type AttemptResult, sendAttempt} from './sender.js';

/** The headers of one attempt of `item`, signed at `t`. */
export function attemptHeaders(
  item: ClaimedDelivery,
  signer: WebhookSigner,
  t: number,
): Record<string, string> {
  return deliveryHeaders({
    signature: signer.sign({payload: item.body, timestamp: t}),
    eventId: item.eventId,
    eventType: item.eventType,
    deliveryId: item.id,
    attempt: item.attempt,
  });
}

export interface SendRoute {
  /** The relay, when `item.relay`: the attempt goes to the listener attached to the endpoint. */
  relay: RelayHub | undefined;
  /** The endpoint's URL, parsed once per lane (text when it does not parse, for the sender to report). */
  target: URL | string | undefined;
  dispatcher: Dispatcher | undefined;
  timeoutMs: number;
  maxResponseBytes: number;
  allowLocalEndpoints: boolean;
  /** Cuts the attempt short without a verdict (shutdown). */
  signal: AbortSignal;
  /** False when no attempt follows at once: the connection to the receiver closes after this one. */
  keepAlive?: boolean;
}

/** One attempt of `item` with these headers, over the relay or HTTP. */
export function sendSigned(
  endpointId: string,
  item: ClaimedDelivery,
  headers: Record<string, string>,
  route: SendRoute,
): Promise<AttemptResult> {
  if (item.relay && route.relay) {
    return route.relay.deliver(
      endpointId,
      {
        type: 'delivery',
        delivery_id: item.id,
        attempt: item.attempt,
        event_id: item.eventId,
        event_type: item.eventType,
        headers,
        body: item.body,
      },
      route.timeoutMs + 5_000,
    );
  }
  return sendAttempt(route.target ?? item.url, headers, item.body, {
    dispatcher: route.dispatcher as Dispatcher,
    timeoutMs: route.timeoutMs,
    maxResponseBytes: route.maxResponseBytes,
    allowLocalEndpoints: route.allowLocalEndpoints,
    signal: route.signal,
    keepAlive: route.keepAlive,
  });
}

/** Parsed once per lane; a URL that does not parse is handed on as text, for the sender to report. */
export function parseTarget(url: string): URL | string {
  try {
    return new URL(url);
  } catch {
    return url;
  }
}
