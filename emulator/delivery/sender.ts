// One HTTP attempt: POST the stored bytes, never follow a redirect, stop waiting after the timeout and stop
// reading after the body cap. Whatever happens becomes an AttemptResult; nothing here throws.
import {performance} from 'node:perf_hooks';
import {type Dispatcher, request} from 'undici';
import {checkLiteralHost} from './address-policy.js';
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

export async function sendAttempt(
  url: string,
  headers: Record<string, string>,
  body: string,
  options: SendOptions,
): Promise<AttemptResult> {
  const started = performance.now();
  const elapsed = () => Math.max(0, Math.round(performance.now() - started));
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, options.timeoutMs);
  const onShutdown = () => controller.abort();
  options.signal?.addEventListener('abort', onShutdown, {once: true});
  try {
    if (!options.allowLocalEndpoints) {
      const target = new URL(url);
      if (target.protocol !== 'https:') throw new Error('only https:// endpoints are delivered to');
      checkLiteralHost(target.hostname);
    }
    const res = await request(url, {
      method: 'POST',
      headers,
      body,
      dispatcher: options.dispatcher,
      signal: controller.signal,
    });
    const responseBody = await readCapped(res.body, options.maxResponseBytes);
    const ok = isSuccessStatus(res.statusCode);
    let error: string | null = null;
    if (res.statusCode >= 300 && res.statusCode < 400) error = `redirect (${res.statusCode}) not followed`;
    return {ok, statusCode: res.statusCode, error, durationMs: elapsed(), responseBody};
  } catch (err) {
    if (!timedOut && options.signal?.aborted) {
      return {
        ok: false,
        statusCode: null,
        error: 'aborted',
        durationMs: elapsed(),
        responseBody: null,
        aborted: true,
      };
    }
    const error = timedOut ? `timed out after ${options.timeoutMs} ms` : describeNetworkError(err);
    return {ok: false, statusCode: null, error, durationMs: elapsed(), responseBody: null};
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onShutdown);
  }
}

/** Reads at most `limit` bytes; past it the stream is destroyed so a huge answer is never buffered. */
function readCapped(stream: Dispatcher.ResponseData['body'], limit: number): Promise<string> {
  // Plain listeners rather than an async iterator: this runs once per attempt on the hot path.
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = () => resolve(size === 0 ? '' : Buffer.concat(chunks, size).toString('utf8'));
    stream.on('data', (chunk: Buffer) => {
      if (size >= limit) return;
      const take = Math.min(chunk.length, limit - size);
      chunks.push(take === chunk.length ? chunk : chunk.subarray(0, take));
      size += take;
      if (size >= limit) {
        stream.destroy();
        finish();
      }
    });
    stream.on('end', finish);
    stream.on('error', (err) => (size >= limit ? finish() : reject(err)));
  });
}

export function describeNetworkError(err: unknown): string {
  const e = err as {code?: string; message?: string; cause?: {code?: string; message?: string}};
  const inner = e?.cause ?? e;
  const code = inner?.code ?? e?.code;
  const message = inner?.message ?? e?.message ?? String(err);
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}
