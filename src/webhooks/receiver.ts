// What every framework integration does with a delivery, whatever hands it over: verify the raw body,
// check the timestamp, handle each event id once, and say what to answer. The integrations (node,
// express, fetch) only read the request and write the answer.
import {RECEIVER_MAX_BODY_BYTES} from '../definitions.js';
import {EventDeduplicator} from './dedup.js';
import {isWebhookVerificationError, type WebhookVerificationError} from './errors.js';
import {isWebhookEventType, type WebhookEvent} from './event.js';
import type {SignatureHeaderInput} from './header.js';
import type {WebhookPayload, WebhookVerifierOptions} from './options.js';
import {WebhookVerifier} from './verify.js';

/** Facts about the delivery from its `Svc-Delivery-*` headers, for logs; absent when not sent. */
export interface DeliveryContext {
  deliveryId: string | undefined;
  /** 1 for the first attempt. */
  attempt: number | undefined;
}

export type WebhookEventHandler = (event: WebhookEvent, delivery: DeliveryContext) => unknown;

export interface WebhookReceiverOptions extends WebhookVerifierOptions {
  /**
   * Runs once per event id with the verified, typed event. Throw to answer 500: the sender retries. An event of a
   * type this version of the library does not list (a later service may add types) is answered 200 and not
   * handed to it.
   */
  onEvent: WebhookEventHandler;
  /** Where handled event ids are kept. Default: an in-memory EventDeduplicator (one process). */
  deduplicator?: EventDeduplicator;
  /**
   * Told about every rejected delivery (with the full explanation, which the sender never sees) and
   * every handler failure. Default: one line on stderr through console.warn / console.error.
   */
  onError?: (error: unknown, kind: 'rejected' | 'handler_failed') => void;
}

/** The request's parts the receiver reads. */
export interface IncomingDelivery {
  payload: WebhookPayload;
  signature: SignatureHeaderInput;
  deliveryId?: string | null | undefined;
  attempt?: string | null | undefined;
}

export type ReceiveOutcome =
  | {status: 200; body: string; duplicate: boolean; event: WebhookEvent}
  | {status: 400; body: string; error: WebhookVerificationError};

export const ANSWER_CONTENT_TYPE = 'application/json';
const ACCEPTED_BODY = '{"received":true}';
const DUPLICATE_BODY = '{"received":true,"duplicate":true}';
const UNKNOWN_TYPE_BODY = '{"received":true,"ignored":"unknown_event_type"}';

/**
 * The sender (or anyone posting to the URL) learns why a request was refused, but not the hints about
 * the receiver's secrets that the full message may hold: those go to onError.
 */
const PUBLIC_REASONS: Record<WebhookVerificationError['reason'], string> = {
  missing_header: 'the Svc-Signature header is missing',
  malformed_header: 'the Svc-Signature header is malformed',
  missing_timestamp: 'the Svc-Signature header has no timestamp',
  invalid_timestamp: 'the Svc-Signature timestamp is not a whole number of seconds',
  no_signature: 'the Svc-Signature header has no usable v1 signature',
  signature_mismatch: 'no v1 signature matches this body',
  timestamp_outside_tolerance: 'the signature timestamp is outside the tolerance',
  invalid_payload: 'the body is not an svc event',
};

export function rejectionBody(error: WebhookVerificationError): string {
  return JSON.stringify({error: {code: error.reason, message: PUBLIC_REASONS[error.reason]}});
}

export const HANDLER_FAILED_BODY =
  '{"error":{"code":"handler_failed","message":"the receiver could not handle the event; send it again later"}}';

export function maxBodyBytesOf(value: unknown): number {
  if (value === undefined) return RECEIVER_MAX_BODY_BYTES;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new TypeError('`maxBodyBytes` must be a whole number of bytes, 1 or more.');
  }
  return value;
}

export function tooLargeBody(limit: number): string {
  return JSON.stringify({
    error: {code: 'payload_too_large', message: `the request body is larger than ${limit} bytes`},
  });
}

function defaultOnError(error: unknown, kind: 'rejected' | 'handler_failed'): void {
  if (kind === 'rejected') {
    console.warn(`svc webhooks: rejected a delivery: ${(error as Error).message}`);
  } else {
    console.error('svc webhooks: the event handler failed; the sender will retry:', error);
  }
}

function attemptNumber(value: string | null | undefined): number | undefined {
  if (value === undefined || value === null) return undefined;
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

export class WebhookReceiver {
  readonly #verifier: WebhookVerifier;
  readonly #dedup: EventDeduplicator;
  readonly #onEvent: WebhookEventHandler;
  readonly onError: (error: unknown, kind: 'rejected' | 'handler_failed') => void;

  constructor(options: WebhookReceiverOptions) {
    if (typeof options?.onEvent !== 'function') {
      throw new TypeError('`onEvent` must be the function that handles each verified event.');
    }
    this.#verifier = new WebhookVerifier(options);
    this.#dedup = options.deduplicator ?? new EventDeduplicator();
    this.#onEvent = options.onEvent;
    this.onError = options.onError ?? defaultOnError;
  }

  /**
   * Verifies and handles one delivery. Verification failures come back as a 400 outcome; an error
   * thrown by onEvent is thrown from here (its id is released, so the sender's retry runs it again).
   */
  async receive(delivery: IncomingDelivery): Promise<ReceiveOutcome> {
    let event: WebhookEvent;
    try {
      event = this.#verifier.constructEvent({payload: delivery.payload, header: delivery.signature});
    } catch (err) {
      if (!isWebhookVerificationError(err)) throw err;
      this.onError(err, 'rejected');
      return {status: 400, body: rejectionBody(err), error: err};
    }
    if (!isWebhookEventType(event.type)) {
      return {status: 200, body: UNKNOWN_TYPE_BODY, duplicate: false, event};
    }
    const context: DeliveryContext = {
      deliveryId: delivery.deliveryId ?? undefined,
      attempt: attemptNumber(delivery.attempt),
    };
    const result = await this.#dedup.once(event.id, () => this.#onEvent(event, context));
    return result.duplicate
      ? {status: 200, body: DUPLICATE_BODY, duplicate: true, event}
      : {status: 200, body: ACCEPTED_BODY, duplicate: false, event};
  }
}
