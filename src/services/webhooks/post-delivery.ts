// One delivery posted the way the service posts it, through the one poster of src/deliver.ts: the
// raw bytes, every Svc-* header, the signature made by the receiver library's signer, no redirect followed, a 2xx
// within 10 s or it failed, and the first 4 kB of the answer kept. `svc webhooks send` and
// `svc webhooks test-receiver` both post through here.
import {deliveryHeaders as headersOf, type PostResult, postDelivery as post} from '../../deliver.js';
import {API_KEY_SECRET_PREFIX, type EventType, SIGNING_SECRET_PREFIX} from '../../definitions.js';
import {usageError} from '../../lib/errors.js';
import {currentSvcCommand} from '../../lib/invocation.js';
import {signPayload} from '@svc/webhooks';
import {signingSecretFrom} from './verify.js';

export interface DeliveryHeadersInput {
  secret: string;
  body: string | Uint8Array;
  /** The signature's `t`, in Unix seconds. */
  timestamp: number;
  eventId: string;
  eventType: EventType | string;
  deliveryId: string;
  /** 1 for the first attempt. */
  attempt?: number;
}

/** The request headers of one attempt, as the service sends them; the signature comes from signPayload. */
export function deliveryHeaders(input: DeliveryHeadersInput): Record<string, string> {
  return headersOf({
    signature: signPayload({secret: input.secret, payload: input.body, timestamp: input.timestamp}),
    eventId: input.eventId,
    eventType: input.eventType,
    deliveryId: input.deliveryId,
    attempt: input.attempt ?? 1,
  });
}

export interface PostedAnswer {
  /** The receiver's status, or null when it did not answer (refused, reset, timed out). */
  status_code: number | null;
  /** What the service would record: a 2xx within the timeout. */
  accepted: boolean;
  /** Why it was not accepted when there was no answer, or the redirect that was not followed. */
  error: string | null;
  duration_ms: number;
  /** The first 4 kB of the answer, as text. */
  response_body: string | null;
  /** The answer was longer than what was kept. */
  response_truncated: boolean;
  timed_out: boolean;
}

export interface PostOptions {
  timeoutMs?: number;
  maxResponseBytes?: number;
}

/** An http(s) URL to post to; anything else is a usage error naming the flag or argument. */
export function parseReceiverUrl(text: string, what = 'URL'): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw usageError(`${what} ${JSON.stringify(text)} is not an absolute URL`, [
      'Example: http://127.0.0.1:3000/webhooks',
    ]);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw usageError(`${what} must be an http:// or https:// URL, not ${url.protocol}`);
  }
  if (url.username || url.password) {
    throw usageError(`${what} must not carry a user name or password`, [
      'Receivers authenticate deliveries by their signature, not by credentials in the URL.',
    ]);
  }
  return url;
}

/** A post's result as the CLI reports it (also for posts made over a connection of their own: --race). */
export function postedAnswer(r: PostResult): PostedAnswer {
  return {
    status_code: r.statusCode,
    accepted: r.ok,
    error: r.error,
    duration_ms: r.durationMs,
    response_body: r.responseBody,
    response_truncated: r.truncated === true,
    timed_out: r.timedOut === true,
  };
}

/** Posts once and reports what came back; never throws for anything the network or the receiver does. */
export async function postDelivery(
  url: URL,
  delivery: {headers: Record<string, string>; body: string | Uint8Array},
  options: PostOptions = {},
): Promise<PostedAnswer> {
  // undici loads only when something is posted: the other commands share this module's imports.
  const {Agent} = await import('undici');
  // Its own connection: each post is on its own, as the service's are, and the command exits when done.
  const dispatcher = new Agent({pipelining: 0});
  try {
    const r = await post(url, delivery.headers, delivery.body, {
      dispatcher,
      timeoutMs: options.timeoutMs,
      maxResponseBytes: options.maxResponseBytes,
    });
    return postedAnswer(r);
  } finally {
    await dispatcher.destroy().catch(() => undefined);
  }
}

/**
 * The signing secret a delivery is signed with (--secret, else SVC_WEBHOOK_SECRET). A value of another shape is
 * refused without being echoed: an API key (svc_…) in its place is the usual mix-up.
 */
export function senderSecret(secret: string | undefined, env: NodeJS.ProcessEnv): string {
  const value = signingSecretFrom(secret, env);
  if (!value.startsWith(SIGNING_SECRET_PREFIX)) {
    const what = value.startsWith(API_KEY_SECRET_PREFIX)
      ? 'an API key, not a signing secret'
      : 'not a signing secret';
    throw usageError(`The secret given is ${what}: signing secrets start with ${SIGNING_SECRET_PREFIX}.`, [
      `Use the endpoint's signing secret, shown once when the endpoint was added (\`${currentSvcCommand(env)} emulator webhooks create\`).`,
    ]);
  }
  return value;
}
