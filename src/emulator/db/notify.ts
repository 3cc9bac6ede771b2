// Signals between emulator processes sharing one PostgreSQL, through LISTEN/NOTIFY: a write to a cached table
// (sent by a trigger at commit), an event waiting to be delivered, a moved manual clock. One dedicated connection
// listens; when it is lost, caches stop trusting themselves until it is back, and everyone is told to re-read.
import {randomBytes} from 'node:crypto';
import type pg from 'pg';
import {realTimers, type Timers} from '../clock.js';

/** Channel names; the change channel is also named by migration 008's trigger. */
export const SIGNAL_CHANNELS = {
  /** Payload: the table a committed statement wrote (orgs, api_keys, webhook_endpoints). */
  change: 'svc_change',
  /** Something may be due now (an event recorded, deliveries handed back). */
  due: 'svc_due',
  /** Payload: schema:version:epoch milliseconds of the manual clock after a move. */
  clock: 'svc_clock',
  /** Payload: schema:org id:version:offset milliseconds of an org's own clock after a move. */
  orgClock: 'svc_org_clock',
  /** Payload: the schema whose deliveries got attempts recorded (waiters for a delivery look again). */
  recorded: 'svc_recorded',
  /** Payload: a relay endpoint id whose holder another run took over; the process streaming to the old one lets go. */
  relay: 'svc_relay',
  /**
   * Payload: schema:token:endpoint ids (comma-separated) deleted through a process: no process may start a request
   * for them any more, and each says so on `cancelled`.
   */
  cancel: 'svc_cancel',
  /** Payload: schema:token:worker, the answer to a `cancel`: that worker starts no request for those endpoints. */
  cancelled: 'svc_cancelled',
  /** Payload: a token; lets a process know that its earlier notifications have been delivered. */
  sync: 'svc_sync',
} as const;

export type SignalChannel = (typeof SIGNAL_CHANNELS)[keyof typeof SIGNAL_CHANNELS];

export interface DatabaseSignals {
  /** True while the listening connection is up: a cache may trust itself only then. */
  readonly live: boolean;
  on(channel: SignalChannel, listener: (payload: string) => void): () => void;
  /** Called once the listening connection is back after a loss: anything may have changed meanwhile. */
  onReconnect(listener: () => void): () => void;
  /** Sends a notification through the shared pool; delivered to every listening process (this one too) at commit. */
  notify(channel: SignalChannel, payload?: string): Promise<void>;
  /**
   * Resolves once a notification sent now has come back to this process. Notifications are delivered in commit
   * order, so by then every process listening has been sent everything committed before the call, and this one has
   * heard it. True when it came back; false when it could not (the listening connection is down, or it took longer
   * than the sync timeout).
   */
  sync(): Promise<boolean>;
  close(): Promise<void>;
}

export interface ListenOptions {
  connectionString: string;
  /** Sends notifications; the emulator's pool. */
  send: (sql: string, params: unknown[]) => Promise<unknown>;
  log?: (line: string) => void;
  /** The longest sync() waits for its echo before giving up (the connection may be down). */
  syncTimeoutMs?: number;
  /** Real time for the reconnect back-off and the sync timeout; tests pass fake ones. Default: the process's. */
  timers?: Timers;
}

/**
 * The listening connection's application_name: the one the URL gives (or `svc emulator`), then the process it
 * belongs to, so that pg_stat_activity tells an operator (or a test) which process listens where.
 */
export function signalsConnectionName(base: string | null, pid: number): string {
  return `${base ?? 'svc emulator'} ${pid} signals`;
}

/**
 * The listening connection's settings, named (signalsConnectionName). A URL's own application_name would win over
 * the one given beside it, so it moves out of the URL into the name; a string that is not a URL keeps its own.
 */
function namedForSignals(connectionString: string): {connectionString: string; application_name?: string} {
  let url: URL;
  try {
    url = new URL(connectionString);
  } catch {
    return {connectionString};
  }
  const base = url.searchParams.get('application_name');
  url.searchParams.delete('application_name');
  return {connectionString: url.toString(), application_name: signalsConnectionName(base, process.pid)};
}

const RECONNECT_FIRST_MS = 50;
const RECONNECT_MAX_MS = 2_000;

/** Opens the listening connection; rejects when the first connection fails (the database is unreachable). */
export async function listenToDatabase(options: ListenOptions): Promise<DatabaseSignals> {
  const {default: pgModule} = await import('pg');
  const log = options.log ?? (() => undefined);
  const timers = options.timers ?? realTimers;
  const hub = new SignalHub(log, timers);
  const connection = new NotificationConnection(
    () => new pgModule.Client({...namedForSignals(options.connectionString), keepAlive: true}),
    hub,
    timers,
    log,
  );
  // The first connection failing rejects here: the emulator does not start without its signals.
  await connection.connect();
  const syncTimeoutMs = options.syncTimeoutMs ?? 2_000;
  return {
    get live() {
      return connection.live;
    },
    on: (channel, listener) => hub.on(channel, listener),
    onReconnect: (listener) => hub.onReconnect(listener),
    async notify(channel, payload = '') {
      await options.send('SELECT pg_notify($1, $2)', [channel, payload]);
    },
    async sync() {
      // Its own listening connection is the only way to know the word went out: while it is down (cut, and
      // coming back), wait for it, within the same bound, instead of answering at once that all is said.
      if (!connection.live && (connection.closed || !(await hub.reconnectWithin(syncTimeoutMs))))
        return false;
      const token = randomBytes(9).toString('base64url');
      const echoed = hub.echoOf(token, syncTimeoutMs);
      try {
        await options.send('SELECT pg_notify($1, $2)', [SIGNAL_CHANNELS.sync, token]);
      } catch {
        hub.echoed(token, false);
      }
      return echoed;
    },
    close: () => connection.close(),
  };
}

/** Who listens to what, and who waits for the echo of a sync: what the notifications are handed to. */
class SignalHub {
  readonly #listeners = new Map<string, Set<(payload: string) => void>>();
  readonly #reconnectListeners = new Set<() => void>();
  readonly #syncWaiters = new Map<string, (heard: boolean) => void>();

  constructor(
    private readonly log: (line: string) => void,
    private readonly timers: Timers,
  ) {}

  on(channel: string, listener: (payload: string) => void): () => void {
    let set = this.#listeners.get(channel);
    if (!set) {
      set = new Set();
      this.#listeners.set(channel, set);
    }
    set.add(listener);
    return () => set.delete(listener);
  }

  onReconnect(listener: () => void): () => void {
    this.#reconnectListeners.add(listener);
    return () => this.#reconnectListeners.delete(listener);
  }

  dispatch(channel: string, payload: string): void {
    if (channel === SIGNAL_CHANNELS.sync) {
      this.echoed(payload);
      return;
    }
    for (const listener of this.#listeners.get(channel) ?? []) {
      try {
        listener(payload);
      } catch (err) {
        this.log(`a database signal listener failed: ${(err as Error).message}`);
      }
    }
  }

  reconnected(): void {
    for (const listener of this.#reconnectListeners) listener();
  }

  /** Resolves true when the listening connection is made again within `timeoutMs`, else false. */
  reconnectWithin(timeoutMs: number): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const off = this.onReconnect(() => {
        off();
        cancel();
        resolve(true);
      });
      const cancel = this.timers.setTimeout(
        () => {
          off();
          resolve(false);
        },
        timeoutMs,
        {background: true},
      );
    });
  }

  /** True when `token` comes back; false after `timeoutMs`, or when it cannot come. */
  echoOf(token: string, timeoutMs: number): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const cancel = this.timers.setTimeout(
        () => {
          this.#syncWaiters.delete(token);
          resolve(false);
        },
        timeoutMs,
        {background: true},
      );
      this.#syncWaiters.set(token, (heard) => {
        cancel();
        resolve(heard);
      });
    });
  }

  echoed(token: string, heard = true): void {
    const waiter = this.#syncWaiters.get(token);
    this.#syncWaiters.delete(token);
    waiter?.(heard);
  }

  /** Nobody waits for an echo that cannot come. */
  releaseSyncs(): void {
    for (const waiter of this.#syncWaiters.values()) waiter(false);
    this.#syncWaiters.clear();
  }
}

/** The one listening connection: made, lost, made again with a growing back-off, closed. */
class NotificationConnection {
  live = false;
  #client: pg.Client | undefined;
  #closed = false;
  #retryMs = RECONNECT_FIRST_MS;
  #cancelRetry: (() => void) | undefined;

  constructor(
    private readonly newClient: () => pg.Client,
    private readonly hub: SignalHub,
    private readonly timers: Timers,
    private readonly log: (line: string) => void,
  ) {}

  async connect(): Promise<void> {
    // Keep-alive probes notice a connection that died without a word (a network gone), not only a closed one.
    const c = this.newClient();
    c.on('error', (err) => this.#lost(c, err.message));
    c.on('end', () => this.#lost(c, 'closed by the server'));
    c.on('notification', (n) => this.hub.dispatch(n.channel, n.payload ?? ''));
    this.#client = c;
    try {
      await c.connect();
      for (const channel of Object.values(SIGNAL_CHANNELS)) await c.query(`LISTEN ${channel}`);
    } catch (err) {
      this.#lost(c, (err as Error).message);
      throw err;
    }
    if (this.#closed) {
      await c.end().catch(() => undefined);
      return;
    }
    this.live = true;
  }

  /** Closed for good: it is not coming back. */
  get closed(): boolean {
    return this.#closed;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#cancelRetry?.();
    this.live = false;
    const c = this.#client;
    this.#client = undefined;
    this.hub.releaseSyncs();
    if (c) await quiet(c);
  }

  #lost(c: pg.Client, reason: string): void {
    if (this.#client !== c) return;
    const wasLive = this.live;
    this.#client = undefined;
    this.live = false;
    void quiet(c);
    this.hub.releaseSyncs();
    // A connection that never came up is retried by whoever was connecting.
    if (this.#closed || !wasLive) return;
    this.log(`lost the database notification connection (${reason}); caches are bypassed until it is back`);
    this.#scheduleReconnect();
  }

  #scheduleReconnect(): void {
    if (this.#closed || this.#cancelRetry) return;
    this.#cancelRetry = this.timers.setTimeout(
      () => {
        this.#cancelRetry = undefined;
        void this.#reconnect();
      },
      this.#retryMs,
      {background: true},
    );
  }

  async #reconnect(): Promise<void> {
    try {
      await this.connect();
    } catch {
      this.#retryMs = Math.min(this.#retryMs * 2, RECONNECT_MAX_MS);
      this.#scheduleReconnect();
      return;
    }
    this.#retryMs = RECONNECT_FIRST_MS;
    this.log('the database notification connection is back');
    this.hub.reconnected();
  }
}

/** Ends a client whose errors no longer matter. */
async function quiet(c: pg.Client): Promise<void> {
  c.removeAllListeners();
  c.on('error', () => undefined);
  await c.end().catch(() => undefined);
}
