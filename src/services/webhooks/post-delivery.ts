// One delivery posted the way the service posts it (spec §6): the raw bytes, every Svc-* header, the signature
// made by the receiver library's signer, no redirect followed, a 2xx within 10 s or it failed, and the first
// 4 kB of the answer kept. `svc webhooks send` and `svc webhooks test-receiver` both post through here.
import type {IncomingMessage} from 'node:http';
import {performance} from 'node:perf_hooks';
import {
  API_KEY_SECRET_PREFIX,
  DELIVERY_TIMEOUT_MS,
  type EventType,
  isSuccessStatus,
  RESPONSE_BODY_LIMIT_BYTES,
  SIGNING_SECRET_PREFIX,
} from '../../definitions.js';
import {usageError} from '../../lib/errors.js';
import {currentSvcCommand} from '../../lib/invocation.js';
import {signPayload} from '@svc/webhooks';
import {signingSecretFrom} from './verify.js';

export const SEND_USER_AGENT = 'svc-webhooks/1 (+svc CLI)';

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
  return {
    'content-type': 'application/json',
    'user-agent': SEND_USER_AGENT,
    'svc-signature': signPayload({secret: input.secret, payload: input.body, timestamp: input.timestamp}),
    'svc-event-id': input.eventId,
    'svc-event-type': input.eventType,
    'svc-delivery-id': input.deliveryId,
    'svc-delivery-attempt': String(input.attempt ?? 1),
  };
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

function describeError(err: unknown): string {
  const e = err as {code?: string; message?: string};
  const message = e?.message ?? String(err);
  return e?.code && !message.includes(e.code) ? `${e.code}: ${message}` : message;
}

/** Posts once and reports what came back; never throws for anything the network or the receiver does. */
export async function postDelivery(
  url: URL,
  delivery: {headers: Record<string, string>; body: string | Uint8Array},
  options: PostOptions = {},
): Promise<PostedAnswer> {
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const maxBytes = options.maxResponseBytes ?? RESPONSE_BODY_LIMIT_BYTES;
  const http =
    url.protocol === 'https:' ? (await import('node:https')).default : (await import('node:http')).default;
  const body = typeof delivery.body === 'string' ? Buffer.from(delivery.body, 'utf8') : delivery.body;
  const started = performance.now();
  const elapsed = () => Math.max(0, Math.round(performance.now() - started));

  return new Promise<PostedAnswer>((resolve) => {
    let settled = false;
    const settle = (answer: Omit<PostedAnswer, 'duration_ms'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({...answer, duration_ms: elapsed()});
      req.destroy();
    };
    const noAnswer = (error: string, timedOut = false) =>
      settle({
        status_code: null,
        accepted: false,
        error,
        response_body: null,
        response_truncated: false,
        timed_out: timedOut,
      });
    const req = http.request(url, {
      method: 'POST',
      headers: {...delivery.headers, 'content-length': String(body.length), connection: 'close'},
      // No pooled sockets: each attempt is on its own, as the service's are, and the command exits when done.
      agent: false,
    });
    const timer = setTimeout(() => noAnswer(`no answer within ${timeoutMs} ms`, true), timeoutMs);
    req.on('error', (err) => noAnswer(describeError(err)));
    req.on('response', (res: IncomingMessage) => {
      const status = res.statusCode ?? 0;
      const chunks: Buffer[] = [];
      let size = 0;
      let truncated = false;
      const answered = () => {
        const redirect =
          status >= 300 && status < 400
            ? `redirect (${status}${res.headers.location ? ` to ${res.headers.location}` : ''}) not followed`
            : null;
        settle({
          status_code: status,
          accepted: isSuccessStatus(status),
          error: redirect,
          response_body: Buffer.concat(chunks, size).toString('utf8'),
          response_truncated: truncated,
          timed_out: false,
        });
      };
      res.on('data', (chunk: Buffer) => {
        const take = Math.min(chunk.length, maxBytes - size);
        if (take > 0) {
          chunks.push(chunk.subarray(0, take));
          size += take;
        }
        // Past the cap the rest is not read: what was kept is the answer.
        if (take < chunk.length) {
          truncated = true;
          answered();
        }
      });
      res.on('end', answered);
      res.on('error', (err) => noAnswer(describeError(err)));
    });
    req.end(body);
  });
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
