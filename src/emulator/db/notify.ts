// Signals between emulator processes sharing one PostgreSQL, through LISTEN/NOTIFY: a write to a cached table
// (sent by a trigger at commit), an event waiting to be delivered, a moved manual clock. One dedicated connection
// listens; when it is lost, caches stop trusting themselves until it is back, and everyone is told to re-read.
import {randomBytes} from 'node:crypto';
import type pg from 'pg';

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
   * order, so by then every process listening has been sent everything committed before the call.
   */
  sync(): Promise<void>;
  close(): Promise<void>;
}

export interface ListenOptions {
  connectionString: string;
  /** Sends notifications; the emulator's pool. */
  send: (sql: string, params: unknown[]) => Promise<unknown>;
  log?: (line: string) => void;
  /** The longest sync() waits for its echo before giving up (the connection may be down). */
  syncTimeoutMs?: number;
}

const RECONNECT_FIRST_MS = 50;
const RECONNECT_MAX_MS = 2_000;

/** Opens the listening connection; rejects when the first connection fails (the database is unreachable). */
export async function listenToDatabase(options: ListenOptions): Promise<DatabaseSignals> {
  const {default: pgModule} = await import('pg');
  const log = options.log ?? (() => undefined);
  const syncTimeoutMs = options.syncTimeoutMs ?? 2_000;
  const listeners = new Map<string, Set<(payload: string) => void>>();
  const reconnectListeners = new Set<() => void>();
  const syncWaiters = new Map<string, () => void>();
  let client: pg.Client | undefined;
  let live = false;
  let closed = false;
  let retryMs = RECONNECT_FIRST_MS;
  let retryTimer: NodeJS.Timeout | undefined;

  const dispatch = (channel: string, payload: string) => {
    if (channel === SIGNAL_CHANNELS.sync) {
      const waiter = syncWaiters.get(payload);
      if (waiter) {
        syncWaiters.delete(payload);
        waiter();
      }
      return;
    }
    for (const listener of listeners.get(channel) ?? []) {
      try {
        listener(payload);
      } catch (err) {
        log(`a database signal listener failed: ${(err as Error).message}`);
      }
    }
  };

  const lost = (c: pg.Client, reason: string) => {
    if (client !== c) return;
    const wasLive = live;
    client = undefined;
    live = false;
    c.removeAllListeners();
    c.on('error', () => undefined);
    c.end().catch(() => undefined);
    // Nobody waits for an echo that cannot come.
    for (const waiter of syncWaiters.values()) waiter();
    syncWaiters.clear();
    // A connection that never came up is retried by whoever was connecting.
    if (closed || !wasLive) return;
    log(`lost the database notification connection (${reason}); caches are bypassed until it is back`);
    scheduleReconnect();
  };

  const connect = async (): Promise<void> => {
    // Keep-alive probes notice a connection that died without a word (a network gone), not only a closed one.
    const c = new pgModule.Client({connectionString: options.connectionString, keepAlive: true});
    c.on('error', (err) => lost(c, err.message));
    c.on('end', () => lost(c, 'closed by the server'));
    c.on('notification', (n) => dispatch(n.channel, n.payload ?? ''));
    client = c;
    try {
      await c.connect();
      for (const channel of Object.values(SIGNAL_CHANNELS)) await c.query(`LISTEN ${channel}`);
    } catch (err) {
      lost(c, (err as Error).message);
      throw err;
    }
    if (closed) {
      await c.end().catch(() => undefined);
      return;
    }
    live = true;
  };

  const scheduleReconnect = () => {
    if (closed || retryTimer) return;
    retryTimer = setTimeout(async () => {
      retryTimer = undefined;
      try {
        await connect();
      } catch {
        retryMs = Math.min(retryMs * 2, RECONNECT_MAX_MS);
        scheduleReconnect();
        return;
      }
      retryMs = RECONNECT_FIRST_MS;
      log('the database notification connection is back');
      for (const listener of reconnectListeners) listener();
    }, retryMs);
    retryTimer.unref();
  };

  await connect();
  // (The first connection failing rejects above: the emulator does not start without its signals.)

  return {
    get live() {
      return live;
    },
    on(channel, listener) {
      let set = listeners.get(channel);
      if (!set) {
        set = new Set();
        listeners.set(channel, set);
      }
      set.add(listener);
      return () => set.delete(listener);
    },
    onReconnect(listener) {
      reconnectListeners.add(listener);
      return () => reconnectListeners.delete(listener);
    },
    async notify(channel, payload = '') {
      await options.send('SELECT pg_notify($1, $2)', [channel, payload]);
    },
    async sync() {
      if (!live) return;
      const token = randomBytes(9).toString('base64url');
      const echoed = new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          syncWaiters.delete(token);
          resolve();
        }, syncTimeoutMs);
        timer.unref();
        syncWaiters.set(token, () => {
          clearTimeout(timer);
          resolve();
        });
      });
      try {
        await options.send('SELECT pg_notify($1, $2)', [SIGNAL_CHANNELS.sync, token]);
      } catch {
        syncWaiters.get(token)?.();
        syncWaiters.delete(token);
      }
      await echoed;
    },
    async close() {
      closed = true;
      if (retryTimer) clearTimeout(retryTimer);
      live = false;
      const c = client;
      client = undefined;
      for (const waiter of syncWaiters.values()) waiter();
      syncWaiters.clear();
      if (c) {
        c.removeAllListeners();
        c.on('error', () => undefined);
        await c.end().catch(() => undefined);
      }
    },
  };
}
