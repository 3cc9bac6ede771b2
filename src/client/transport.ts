// GET with a timeout, bounded retries and backoff; every failure leaves here as a typed error.
import {ApiError, type ErrorContext, errorFromResponse, NetworkError} from './errors.js';

/** The part of a fetch Response the transport reads; a real Response fits, and so does the node:http one. */
export interface ResponseLike {
  ok: boolean;
  status: number;
  headers: {get(name: string): string | null};
  text(): Promise<string>;
  body?: {cancel(): Promise<void>} | null;
}
export type FetchLike = (input: string, init: RequestInit) => Promise<ResponseLike>;
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export interface TransportOptions {
  apiUrl: string;
  apiKey: string;
  accountUrl: string;
  userAgent: string;
  fetch: FetchLike;
  timeoutMs: number;
  retries: number;
  sleep: Sleep;
  random: () => number;
  /** Told the `Date` header of every answer, with the local time it arrived. */
  /** The `Date` header of an answer, with when the request went out and when the answer came back. */
  onDate?: (value: string, sentAtMs: number, receivedAtMs: number) => void;
}

/**
 * Neither client follows a redirect, the API client nor the emulator's control client: a redirect could carry the
 * Authorization header (and a control request's body) to another origin, and neither an API nor an emulator ever
 * needs one. Every request goes out with these options, and every 3xx answer is refused with redirectRefusal.
 */
export const NO_REDIRECTS = {redirect: 'manual'} as const satisfies RequestInit;

/** A 3xx answer: a redirect, never followed. */
export function isRedirect(status: number): boolean {
  return status >= 300 && status < 400;
}

/** The sentence of a refused redirect: `who` names what answered (`the API at https://…`). */
export function redirectRefusal(who: string, status: number): string {
  return `${who} answered with a redirect (${status}), which svc does not follow`;
}

/** Answers worth another try: the request was a GET, so repeating it is harmless. */
const RETRYABLE_STATUS = new Set([429, 502, 503, 504]);
const BACKOFF_BASE_MS = 250;
const BACKOFF_CAP_MS = 4000;
/** A longer Retry-After than this is reported instead of waited out: a CLI that hangs silently looks broken. */
export const RETRY_AFTER_CAP_SECONDS = 10;

export const realSleep: Sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, {once: true});
  });

/** Full-jitter exponential backoff: spreads retries of many clients instead of synchronising them. */
export function backoffMs(attempt: number, random: () => number): number {
  const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** attempt);
  return Math.round(ceiling / 2 + (ceiling / 2) * random());
}

/** Retry-After as seconds (delta-seconds or an HTTP date), or undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, nowMs = Date.now()): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - nowMs) / 1000));
}

export async function getJson(
  options: TransportOptions,
  path: string,
  signal?: AbortSignal,
): Promise<unknown> {
  const url = `${options.apiUrl}${path}`;
  const headers = {
    authorization: `Bearer ${options.apiKey}`,
    accept: 'application/json',
    'user-agent': options.userAgent,
  };
  for (let attempt = 0; ; attempt++) {
    const canRetry = attempt < options.retries;
    let response: ResponseLike;
    const sentAtMs = Date.now();
    try {
      const timeout = AbortSignal.timeout(options.timeoutMs);
      response = await options.fetch(url, {
        method: 'GET',
        headers,
        ...NO_REDIRECTS,
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      if (canRetry) {
        await options.sleep(backoffMs(attempt, options.random), signal);
        continue;
      }
      throw networkError(url, err, options.timeoutMs);
    }
    const date = response.headers.get('date');
    if (date !== null) options.onDate?.(date, sentAtMs, Date.now());
    if (response.ok) {
      let text: string;
      try {
        text = await response.text();
      } catch (err) {
        // The body can still fail after the headers: a timeout or a dropped connection mid-answer.
        if (signal?.aborted) throw signal.reason;
        throw networkError(url, err, options.timeoutMs);
      }
      return parseJson(text, response.status, url);
    }
    if (isRedirect(response.status)) {
      await discard(response);
      throw new ApiError(redirectRefusal(`the API at ${url}`, response.status), {
        code: 'unexpected_redirect',
        status: response.status,
      });
    }
    const body = await readErrorBody(response);
    const retryAfterSeconds = parseRetryAfter(response.headers.get('retry-after'));
    const ctx: ErrorContext = {url, accountUrl: options.accountUrl, retryAfterSeconds};
    const error = errorFromResponse(response.status, body, ctx);
    const waitMs =
      retryAfterSeconds !== undefined ? retryAfterSeconds * 1000 : backoffMs(attempt, options.random);
    const retryable =
      RETRYABLE_STATUS.has(response.status) &&
      error.code !== 'vault_unavailable' && // a missing vault key does not come back by waiting
      (retryAfterSeconds === undefined || retryAfterSeconds <= RETRY_AFTER_CAP_SECONDS);
    if (!retryable || !canRetry) throw error;
    await options.sleep(waitMs, signal);
  }
}

function parseJson(text: string, status: number, url: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError(`the API at ${url} answered with something that is not JSON`, {
      code: 'invalid_response',
      status,
    });
  }
}

async function readErrorBody(response: ResponseLike): Promise<unknown> {
  try {
    return JSON.parse(await response.text());
  } catch {
    return undefined;
  }
}

/** Frees an answer's body unread. */
export async function discard(response: ResponseLike): Promise<void> {
  try {
    await response.body?.cancel();
  } catch {
    // nothing to free
  }
}

function networkError(url: string, err: unknown, timeoutMs: number): NetworkError {
  return new NetworkError(url, describeNetworkFailure(err, timeoutMs), err);
}

/** A short reason from the error chain; only codes and names, never the request itself. */
function describeNetworkFailure(err: unknown, timeoutMs: number): string {
  const chain: unknown[] = [];
  for (let e: unknown = err; e && chain.length < 5; e = (e as {cause?: unknown}).cause) chain.push(e);
  for (const e of chain) {
    const {name, code} = e as {name?: unknown; code?: unknown};
    if (name === 'TimeoutError') return `no answer within ${timeoutMs / 1000} s`;
    switch (code) {
      case 'ECONNREFUSED':
        return 'connection refused';
      case 'ENOTFOUND':
      case 'EAI_AGAIN':
        return 'the host name could not be resolved';
      case 'ECONNRESET':
      case 'UND_ERR_SOCKET':
        return 'the connection was closed unexpectedly';
      case 'ETIMEDOUT':
      case 'UND_ERR_CONNECT_TIMEOUT':
        return 'the connection timed out';
      default:
        if (typeof code === 'string' && /CERT|SSL|TLS/.test(code)) return `TLS error (${code})`;
    }
  }
  // The innermost message names the failure ("bad port", "other side closed"); requests carry the key only in a header.
  const inner = chain.at(-1);
  const message = inner instanceof Error && inner !== err ? inner.message.replace(/\s+/g, ' ').trim() : '';
  return message && message.length <= 120 ? message : 'the request failed before an answer arrived';
}
