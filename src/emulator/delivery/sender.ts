// One HTTP attempt: POST the stored bytes, never follow a redirect, stop waiting after the timeout and stop
// reading after the body cap. Whatever happens becomes an AttemptResult; nothing here throws.
import {performance} from 'node:perf_hooks';
import type {Dispatcher} from 'undici';
import {checkLiteralHost} from '../net/address-policy.js';
import {isSuccessStatus} from './retry-policy.js';

export interface AttemptResult {
  ok: boolean;
  statusCode: number | null;
  /** Network error, timeout or refusal text; null when the receiver answered. */
  error: string | null;
  durationMs: number;
  responseBody: string | null;
  /** The attempt was cut short by shutdown: it must not count. */
  aborted?: boolean;
}

export interface SendOptions {
  dispatcher: Dispatcher;
  timeoutMs: number;
  maxResponseBytes: number;
  /** When false, IP-literal hosts must be public (resolved hosts are checked by the dispatcher). */
  allowLocalEndpoints: boolean;
  /** Aborts the attempt without a verdict (the worker is shutting down); the result then has `aborted`. */
  signal?: AbortSignal;
}

/**
 * `url` may come parsed (a lane parses its endpoint's URL once). The attempt goes straight to the dispatcher with
 * a handler that keeps at most `maxResponseBytes` of the answer: no response stream, no AbortSignal per attempt.
 */
export function sendAttempt(
  url: string | URL,
  headers: Record<string, string>,
  body: string,
  options: SendOptions,
): Promise<AttemptResult> {
  const started = performance.now();
  const elapsed = () => Math.max(0, Math.round(performance.now() - started));
  let target: URL;
  try {
    target = typeof url === 'string' ? new URL(url) : url;
    if (!options.allowLocalEndpoints) {
      if (target.protocol !== 'https:') throw new Error('only https:// endpoints are delivered to');
      checkLiteralHost(target.hostname);
    }
  } catch (err) {
    return Promise.resolve(failure(describeNetworkError(err), elapsed()));
  }
  const signal = options.signal;
  if (signal?.aborted) return Promise.resolve(abortedResult(elapsed()));

  return new Promise<AttemptResult>((resolve) => {
    let settled = false;
    let controller: Dispatcher.DispatchController | undefined;
    let cut: 'timeout' | 'shutdown' | undefined;
    let statusCode = 0;
    const chunks: Buffer[] = [];
    let size = 0;

    const settle = (result: AttemptResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onShutdown);
      resolve(result);
    };
    const answered = () => {
      const responseBody = size === 0 ? '' : Buffer.concat(chunks, size).toString('utf8');
      const error = statusCode >= 300 && statusCode < 400 ? `redirect (${statusCode}) not followed` : null;
      settle({ok: isSuccessStatus(statusCode), statusCode, error, durationMs: elapsed(), responseBody});
    };
    const cutShort = (why: 'timeout' | 'shutdown') => {
      if (settled) return;
      cut = why;
      // Settled first: aborting reports an error synchronously, which must not become the verdict.
      settle(
        why === 'timeout'
          ? failure(`timed out after ${options.timeoutMs} ms`, elapsed())
          : abortedResult(elapsed()),
      );
      // Before the request starts there is no controller yet; onRequestStart aborts it then.
      controller?.abort(new Error(why));
    };
    const timer = setTimeout(() => cutShort('timeout'), options.timeoutMs);
    const onShutdown = () => cutShort('shutdown');
    signal?.addEventListener('abort', onShutdown, {once: true});

    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(c) {
        controller = c;
        if (cut) c.abort(new Error(cut));
      },
      onResponseStart(_c, status) {
        statusCode = status;
      },
      onResponseData(c, chunk) {
        if (settled) return;
        const take = Math.min(chunk.length, options.maxResponseBytes - size);
        if (take > 0) {
          chunks.push(take === chunk.length ? chunk : chunk.subarray(0, take));
          size += take;
        }
        // Past the cap the rest is never read: the connection is dropped and what was kept is the answer.
        if (size >= options.maxResponseBytes) {
          answered();
          c.abort(new Error('response body limit reached'));
        }
      },
      onResponseEnd() {
        answered();
      },
      onResponseError(_c, err) {
        settle(failure(describeNetworkError(err), elapsed()));
      },
    };
    try {
      options.dispatcher.dispatch(
        {origin: target.origin, path: target.pathname + target.search, method: 'POST', headers, body},
        handler,
      );
    } catch (err) {
      settle(failure(describeNetworkError(err), elapsed()));
    }
  });
}

function failure(error: string, durationMs: number): AttemptResult {
  return {ok: false, statusCode: null, error, durationMs, responseBody: null};
}

function abortedResult(durationMs: number): AttemptResult {
  return {ok: false, statusCode: null, error: 'aborted', durationMs, responseBody: null, aborted: true};
}

export function describeNetworkError(err: unknown): string {
  const e = err as {code?: string; message?: string; cause?: {code?: string; message?: string}};
  const inner = e?.cause ?? e;
  const code = inner?.code ?? e?.code;
  const message = inner?.message ?? e?.message ?? String(err);
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}
