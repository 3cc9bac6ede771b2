// The request log for whoever runs the emulator: each /v1, control and account-page request with its answer,
// and for every refusal the real reason, which /v1 itself never tells (its 401 is the same whatever the cause).
// Kept in memory per process, bounded: the oldest entries go first.
import type {MiddlewareHandler} from 'hono';
import {ERROR_STATUS, redactSecrets} from '../definitions.js';
import type {AppEnv} from './app-env.js';
import {type Clock, realTimers, type Timers} from './clock.js';

/** Entries a process keeps; older ones are dropped. */
export const REQUEST_LOG_CAPACITY = 5_000;
/** The log's own route: reading it is not logged, or following it would fill it. */
export const REQUEST_LOG_PATH = '/_emulator/logs';

export type {Refusal} from './app-env.js';

export interface RequestLogEntry {
  /** Order within this process, for following the log. */
  seq: number;
  /** ISO 8601 by the emulator's clock. */
  time: string;
  method: string;
  path: string;
  status: number;
  duration_ms: number;
  key_id?: string;
  key_prefix?: string;
  reason?: string;
  detail?: string;
}

const CODE_OF_STATUS = new Map<number, string>(
  Object.entries(ERROR_STATUS).map(([code, status]) => [status, code]),
);

export class RequestLog {
  // A ring: `slots[(start + i) % capacity]` is the i-th oldest entry; adding never moves the others.
  private readonly slots: RequestLogEntry[] = [];
  private start = 0;
  private next = 1;
  private readonly waiters = new Set<() => void>();
  private closed = false;

  constructor(
    private readonly capacity = REQUEST_LOG_CAPACITY,
    /** A follower's real-time wait for the next entry. */
    private readonly timers: Timers = realTimers,
  ) {}

  add(entry: Omit<RequestLogEntry, 'seq'>): void {
    const full: RequestLogEntry = {seq: this.next++, ...entry};
    if (this.slots.length < this.capacity) this.slots.push(full);
    else {
      this.slots[this.start] = full;
      this.start = (this.start + 1) % this.capacity;
    }
    if (this.waiters.size > 0) {
      for (const wake of this.waiters) wake();
      this.waiters.clear();
    }
  }

  /** Entries after `afterSeq`, at or after `sinceMs` (emulator time), oldest first. */
  read(options: {afterSeq?: number; sinceMs?: number} = {}): RequestLogEntry[] {
    const after = options.afterSeq ?? 0;
    const since = options.sinceMs;
    const out: RequestLogEntry[] = [];
    for (let i = 0; i < this.slots.length; i++) {
      const e = this.slots[(this.start + i) % this.slots.length] as RequestLogEntry;
      if (e.seq > after && (since === undefined || Date.parse(e.time) >= since)) out.push(e);
    }
    return out;
  }

  /** The seq of the newest entry (0 when empty): a follower starts after it. */
  get last(): number {
    return this.next - 1;
  }

  /** The emulator is stopping: followers are answered at once, so none holds the server open. */
  close(): void {
    this.closed = true;
    for (const wake of this.waiters) wake();
    this.waiters.clear();
  }

  /** Resolves when an entry after `afterSeq` exists, or after `timeoutMs`, or when `signal` aborts. */
  waitForNew(afterSeq: number, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    if (this.closed || this.last > afterSeq) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        cancelWait();
        this.waiters.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      // Every wait ends by close() when the emulator stops, so none holds the process open.
      const cancelWait = this.timers.setTimeout(done, timeoutMs);
      this.waiters.add(done);
      signal?.addEventListener('abort', done, {once: true});
    });
  }
}

const LOGGED = /^\/(v1\/|_emulator\/|account(\/|$)|_links\/)/;
/** A link URL's token: the credential of the link, never logged. */
const LINK_TOKEN = /^(\/_links\/)[^/]+/;

/** Records every /v1, control, account-page and link request once its answer is made (a link's token left out). */
export function logRequests(log: RequestLog, clock: Clock): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const path = c.req.path;
    if (!LOGGED.test(path) || path === REQUEST_LOG_PATH) return next();
    const started = performance.now();
    const time = clock.now();
    await next();
    const status = c.get('upgraded') ?? c.res.status;
    const refusal = c.get('refusal');
    const key = c.get('key');
    const entry: Omit<RequestLogEntry, 'seq'> = {
      time: time.toISOString(),
      method: c.req.method,
      // A secret put in a path (by mistake or by a guesser) is never kept whole; a link's token never at all.
      path: redactSecrets(path.replace(LINK_TOKEN, '$1…')),
      status,
      duration_ms: Math.round((performance.now() - started) * 10) / 10,
    };
    const keyId = key?.id ?? refusal?.key_id;
    const keyPrefix = key?.prefix ?? refusal?.key_prefix;
    if (keyId) entry.key_id = keyId;
    if (keyPrefix) entry.key_prefix = keyPrefix;
    if (status >= 400) {
      entry.reason = refusal?.reason ?? CODE_OF_STATUS.get(status) ?? `http_${status}`;
      const detail = refusal?.detail ?? retryDetail(c.res.headers.get('retry-after'), clock);
      if (detail) entry.detail = detail;
    }
    log.add(entry);
  };
}

function retryDetail(retryAfter: string | null, clock: Clock): string | undefined {
  const seconds = retryAfter === null ? Number.NaN : Number(retryAfter);
  if (!Number.isFinite(seconds)) return undefined;
  return `limited until ${new Date(clock.now().getTime() + seconds * 1000).toISOString()}`;
}
