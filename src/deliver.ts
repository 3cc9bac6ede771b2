// One delivery posted the way the service posts it, for the emulator's delivery worker, `svc listen`
// and `svc webhooks send`/`test-receiver` alike: the stored bytes as they are, every Svc-* header from the one
// list in the definitions, one user agent, no redirect followed, the answer waited for at most the delivery
// timeout and read up to the body cap. The transport (an undici dispatcher) is passed in: the emulator's checks
// who it may connect to, the CLI's connects anywhere. Nothing here throws: whatever happens is a PostResult.
import {performance} from 'node:perf_hooks';
import type {Dispatcher} from 'undici';
import {
  DELIVERY_HEADERS,
  DELIVERY_TIMEOUT_MS,
  isSuccessStatus,
  RESPONSE_BODY_LIMIT_BYTES,
} from './definitions.js';

/** The user agent of every delivery, from the emulator or the CLI. */
export const DELIVERY_USER_AGENT = 'svc-webhooks/1';

export interface DeliveryHeaderValues {
  /** The `Svc-Signature` value, made by the receiver library's signer. */
  signature: string;
  eventId: string;
  eventType: string;
  deliveryId: string;
  /** 1 for the first attempt. */
  attempt: number;
}

/** The request headers of one attempt (lowercase, as Node sends them), the names from the one list. */
export function deliveryHeaders(values: DeliveryHeaderValues): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': DELIVERY_USER_AGENT,
    [DELIVERY_HEADERS.signature.toLowerCase()]: values.signature,
    [DELIVERY_HEADERS.eventId.toLowerCase()]: values.eventId,
    [DELIVERY_HEADERS.eventType.toLowerCase()]: values.eventType,
    [DELIVERY_HEADERS.deliveryId.toLowerCase()]: values.deliveryId,
    [DELIVERY_HEADERS.attempt.toLowerCase()]: String(values.attempt),
  };
}

export interface PostResult {
  /** A 2xx within the timeout: what the service records as delivered. */
  ok: boolean;
  /** The receiver's status, or null when it did not answer (refused, reset, timed out). */
  statusCode: number | null;
  /** Network error, timeout or refusal text, or the redirect that was not followed; null otherwise. */
  error: string | null;
  durationMs: number;
  /** What was kept of the answer (at most the body cap), as text; null when there was no answer. */
  responseBody: string | null;
  /** The answer was longer than what was kept. */
  truncated?: boolean;
  /** No answer within the timeout. */
  timedOut?: boolean;
  /** The connection was refused: nothing listens there. */
  refused?: boolean;
  /** Cut short by `signal` (shutdown): it must not count. */
  aborted?: boolean;
}

export interface PostOptions {
  /** The transport: who may be connected to, and how connections are kept, is its business. */
  dispatcher: Dispatcher;
  /** Defaults to the service's delivery timeout. */
  timeoutMs?: number;
  /** Defaults to the service's response body cap. */
  maxResponseBytes?: number;
  /** Aborts the post without a verdict; the result then has `aborted`. */
  signal?: AbortSignal;
  /**
   * False: the connection closes once the answer is in (`Connection: close`), so no idle socket is left behind
   * to keep the receiver's `server.close()` waiting. Default: it may be kept for the next post.
   */
  keepAlive?: boolean;
}

/** What a network error says, with its code when the message leaves it out. */
export function describeNetworkError(err: unknown): string {
  const e = err as {code?: string; message?: string; cause?: {code?: string; message?: string}};
  const inner = e?.cause ?? e;
  const code = inner?.code ?? e?.code;
  const message = inner?.message ?? e?.message ?? String(err);
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}

function codeOf(err: unknown): string | undefined {
  const e = err as {code?: string; cause?: {code?: string}};
  return e?.code ?? e?.cause?.code;
}

/** A result without an answer. */
export function noAnswer(error: string, durationMs: number, more: Partial<PostResult> = {}): PostResult {
  return {ok: false, statusCode: null, error, durationMs, responseBody: null, ...more};
}

/** What a 3xx answer is recorded as: the redirect, which is never followed; null for any other status. */
export function redirectError(status: number, location: unknown): string | null {
  if (status < 300 || status >= 400) return null;
  const to = typeof location === 'string' && location ? ` to ${location}` : '';
  return `redirect (${status}${to}) not followed`;
}

/** The request of one post; without keep-alive it asks for the connection to close after the answer. */
function postRequest(
  url: URL,
  headers: Record<string, string>,
  body: string | Uint8Array,
  keepAlive: boolean,
): Dispatcher.DispatchOptions {
  return {
    origin: url.origin,
    path: url.pathname + url.search,
    method: 'POST',
    headers,
    body,
    reset: !keepAlive,
  };
}

/**
 * POSTs `body` to `url` once, straight to the dispatcher with a handler that keeps at most the body cap of the
 * answer: no response stream, no AbortSignal per post.
 */
export function postDelivery(
  url: URL,
  headers: Record<string, string>,
  body: string | Uint8Array,
  options: PostOptions,
): Promise<PostResult> {
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const maxBytes = options.maxResponseBytes ?? RESPONSE_BODY_LIMIT_BYTES;
  const started = performance.now();
  const elapsed = () => Math.max(0, Math.round(performance.now() - started));
  const signal = options.signal;
  if (signal?.aborted) return Promise.resolve(noAnswer('aborted', elapsed(), {aborted: true}));

  return new Promise<PostResult>((resolve) => {
    let settled = false;
    let controller: Dispatcher.DispatchController | undefined;
    let cut: 'timeout' | 'shutdown' | undefined;
    let statusCode = 0;
    let location: unknown;
    const chunks: Buffer[] = [];
    let size = 0;
    let truncated = false;

    const settle = (result: PostResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onShutdown);
      resolve(result);
    };
    const answered = () => {
      const responseBody = size === 0 ? '' : Buffer.concat(chunks, size).toString('utf8');
      const error = redirectError(statusCode, location);
      settle({
        ok: isSuccessStatus(statusCode),
        statusCode,
        error,
        durationMs: elapsed(),
        responseBody,
        truncated,
      });
    };
    const failed = (err: unknown) =>
      settle(noAnswer(describeNetworkError(err), elapsed(), {refused: codeOf(err) === 'ECONNREFUSED'}));
    const cutShort = (why: 'timeout' | 'shutdown') => {
      if (settled) return;
      cut = why;
      // Settled first: aborting reports an error synchronously, which must not become the verdict.
      settle(
        why === 'timeout'
          ? noAnswer(timedOutText(timeoutMs), elapsed(), {timedOut: true})
          : noAnswer('aborted', elapsed(), {aborted: true}),
      );
      // Before the request starts there is no controller yet; onRequestStart aborts it then.
      controller?.abort(new Error(why));
    };
    const timer = setTimeout(() => cutShort('timeout'), timeoutMs);
    const onShutdown = () => cutShort('shutdown');
    signal?.addEventListener('abort', onShutdown, {once: true});

    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(c) {
        controller = c;
        if (cut) c.abort(new Error(cut));
      },
      onResponseStart(_c, status, responseHeaders) {
        statusCode = status;
        location = responseHeaders?.location;
      },
      onResponseData(c, chunk) {
        if (settled) return;
        const take = Math.min(chunk.length, maxBytes - size);
        if (take > 0) {
          chunks.push(take === chunk.length ? chunk : chunk.subarray(0, take));
          size += take;
        }
        if (take < chunk.length) truncated = true;
        // Past the cap the rest is never read: the connection is dropped and what was kept is the answer.
        if (size >= maxBytes) {
          answered();
          c.abort(new Error('response body limit reached'));
        }
      },
      onResponseEnd() {
        answered();
      },
      onResponseError(_c, err) {
        failed(err);
      },
    };
    try {
      options.dispatcher.dispatch(postRequest(url, headers, body, options.keepAlive !== false), handler);
    } catch (err) {
      failed(err);
    }
  });
}

/** The error an attempt cut at its budget is recorded with: one wording, read back by what tells timeouts apart. */
export function timedOutText(timeoutMs: number): string {
  return `timed out after ${timeoutMs} ms`;
}

/** Whether an attempt's recorded error is a cut at the budget (timedOutText), not a refusal or a reset. */
export function isTimedOutText(error: string): boolean {
  return /^timed out after \d+ ms$/.test(error);
}
