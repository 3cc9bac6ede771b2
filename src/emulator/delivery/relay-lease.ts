// Who forwards a relay, across every emulator process sharing the database: one `svc listen` run per relay endpoint
// holds a lease (relay_holders, migration 012). The process holding the run's stream renews it while the stream
// lives and drops it on a clean disconnect; a process killed without a word leaves it to run out. A run that asks
// to take over replaces the holder once, and the process streaming to the old run tells it so and lets it go.
import {hostname} from 'node:os';
import {isProcessAlive} from '../../emulator-layout/runtime.js';
import type {Database, Queryable} from '../db/database.js';
import {type DatabaseSignals, SIGNAL_CHANNELS} from '../db/notify.js';
import type {RelayHolder, RelayHub} from './relay-hub.js';
import {every, realTimers, type Timers} from './timers.js';

/** How long a holder keeps the relay after its process last renewed it: the wait after a `kill -9`. */
export const RELAY_LEASE_MS = 10_000;
/** Renewals per lease: a renewal that comes late (a busy machine, a slow query) still finds the lease its own. */
const RENEWALS_PER_LEASE = 3;

export type AcquireResult =
  /** `previous`: the live run this one took the relay from (only when asked to take over). */
  {held: true; previous?: RelayHolder} | {held: false; current: RelayHolder};

interface HolderRow {
  listener_id: string;
  pid: number | null;
  host: string | null;
  since: Date | string;
  expired: boolean;
}

const HOLDER_COLUMNS = 'listener_id, pid, host, since, expires_at <= clock_timestamp() AS expired';

function toHolder(row: HolderRow): RelayHolder {
  return {
    listener_id: row.listener_id,
    pid: row.pid,
    host: row.host,
    since: new Date(row.since).toISOString(),
  };
}

/** A run that was a process on this machine and has exited holds nothing, whatever its lease says. */
function exitedHere(holder: RelayHolder): boolean {
  return holder.pid !== null && holder.host === hostname() && !isProcessAlive(holder.pid);
}

export interface RelayLeaseOptions {
  db: Database;
  /** The streams this process holds. */
  hub: RelayHub;
  /** Word of takeovers to and from the other processes sharing the database (PostgreSQL only). */
  signals?: DatabaseSignals;
  /** Names this emulator process in the rows it writes. */
  processId: string;
  leaseMs?: number;
  /** The real time renewals run on (default: the real one). */
  timers?: Timers;
  log?: (line: string) => void;
}

export class RelayLeases {
  readonly #db: Database;
  readonly #processId: string;
  readonly #leaseMs: number;
  readonly #log: (line: string) => void;
  readonly #hub: RelayHub;
  readonly #signals: DatabaseSignals | undefined;
  readonly #timers: Timers;
  #stopRenewing: (() => void) | undefined;
  #unsubscribe: (() => void) | undefined;

  constructor(o: RelayLeaseOptions) {
    this.#db = o.db;
    this.#processId = o.processId;
    this.#leaseMs = o.leaseMs ?? RELAY_LEASE_MS;
    this.#log = o.log ?? (() => undefined);
    this.#hub = o.hub;
    this.#signals = o.signals;
    this.#timers = o.timers ?? realTimers;
  }

  /**
   * Gives the relay to `holder`, unless another live run holds it: then `current` names that run. The same run
   * coming back (through this process or another) takes its own place back and keeps its `since`; `takeOver`
   * replaces another run, which the process streaming to it is told of at once.
   */
  async acquire(endpointId: string, holder: RelayHolder, takeOver = false): Promise<AcquireResult> {
    for (;;) {
      const result = await this.#db.transaction((tx) => this.#acquire(tx, endpointId, holder, takeOver));
      if (result === 'raced') continue;
      if (result.held && result.previous) this.#tell(endpointId);
      return result;
    }
  }

  async #acquire(
    tx: Queryable,
    endpointId: string,
    holder: RelayHolder,
    takeOver: boolean,
  ): Promise<AcquireResult | 'raced'> {
    const found = await tx.query<HolderRow>(
      `SELECT ${HOLDER_COLUMNS} FROM relay_holders WHERE endpoint_id = $1 FOR UPDATE`,
      [endpointId],
    );
    const row = found.rows[0];
    const current = row && !row.expired ? toHolder(row) : undefined;
    const sameRun = current?.listener_id === holder.listener_id;
    const live = current !== undefined && !sameRun && !exitedHere(current);
    if (live && !takeOver) return {held: false, current};
    const values = [
      endpointId,
      holder.listener_id,
      holder.pid,
      holder.host,
      sameRun && current ? current.since : holder.since,
      this.#processId,
      this.#leaseMs,
    ];
    if (row) {
      await tx.query(
        `UPDATE relay_holders SET listener_id = $2, pid = $3, host = $4, since = $5, process_id = $6,
                expires_at = clock_timestamp() + $7 * interval '1 millisecond'
          WHERE endpoint_id = $1`,
        values,
      );
    } else {
      const inserted = await tx.query(
        `INSERT INTO relay_holders (endpoint_id, listener_id, pid, host, since, process_id, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, clock_timestamp() + $7 * interval '1 millisecond')
         ON CONFLICT (endpoint_id) DO NOTHING`,
        values,
      );
      // Another run's first claim committed between the look and the insert: look again.
      if (inserted.rowCount === 0) return 'raced';
    }
    return live ? {held: true, previous: current} : {held: true};
  }

  /** The live run holding the relay, if any (a lease run out, or a run that exited here, holds nothing). */
  async current(endpointId: string): Promise<RelayHolder | undefined> {
    const r = await this.#db.query<HolderRow>(
      `SELECT ${HOLDER_COLUMNS} FROM relay_holders WHERE endpoint_id = $1`,
      [endpointId],
    );
    const row = r.rows[0];
    if (!row || row.expired) return undefined;
    const holder = toHolder(row);
    return exitedHere(holder) ? undefined : holder;
  }

  /** A clean disconnect: the relay is free at once. Only this process's row of this run goes. */
  async release(endpointId: string, listenerId: string): Promise<void> {
    await this.#db.query(
      'DELETE FROM relay_holders WHERE endpoint_id = $1 AND listener_id = $2 AND process_id = $3',
      [endpointId, listenerId, this.#processId],
    );
  }

  /**
   * Keeps the leases of the streams `hub` holds, and lets a stream go when its run was replaced (told through
   * `signals` at once when another process took it over; found at the next renewal otherwise).
   */
  start(exclusive: boolean): void {
    const hub = this.#hub;
    if (exclusive) {
      // This process alone uses the database: rows left by an earlier run (killed without a word) hold nothing.
      this.#db
        .query('DELETE FROM relay_holders WHERE process_id <> $1', [this.#processId])
        .catch((err: unknown) => {
          this.#log(`could not clear the relay holders of an earlier run: ${(err as Error).message}`);
        });
    }
    this.#unsubscribe = this.#signals?.on(SIGNAL_CHANNELS.relay, (endpointId) => {
      if (hub.holderHere(endpointId)) void this.#check(endpointId);
    });
    this.#stopRenewing = every(
      this.#timers,
      Math.max(1, this.#leaseMs / RENEWALS_PER_LEASE),
      () => void this.#renewAll(),
      {background: true},
    );
  }

  /** Stops renewing and frees every relay this process held, so other processes may take them at once. */
  async stop(): Promise<void> {
    this.#stopRenewing?.();
    this.#unsubscribe?.();
    await this.#db
      .query('DELETE FROM relay_holders WHERE process_id = $1', [this.#processId])
      .catch(() => undefined);
  }

  async #renewAll(): Promise<void> {
    const held = this.#hub.heldHere();
    if (held.length === 0) return;
    try {
      const renewed = await this.#db.query<{endpoint_id: string}>(
        `UPDATE relay_holders SET expires_at = clock_timestamp() + $4 * interval '1 millisecond'
          FROM unnest($1::text[], $2::text[]) AS h(endpoint_id, listener_id)
         WHERE relay_holders.endpoint_id = h.endpoint_id AND relay_holders.listener_id = h.listener_id
           AND relay_holders.process_id = $3
         RETURNING relay_holders.endpoint_id`,
        [
          held.map((h) => h.endpointId),
          held.map((h) => h.holder.listener_id),
          this.#processId,
          this.#leaseMs,
        ],
      );
      const kept = new Set(renewed.rows.map((r) => r.endpoint_id));
      for (const h of held) if (!kept.has(h.endpointId)) await this.#check(h.endpointId);
    } catch (err) {
      this.#log(`could not renew the relay leases: ${(err as Error).message}`);
    }
  }

  /**
   * The stream held here for `endpointId` may no longer be its relay's: another run took it over (the stream is
   * told by whom and let go), the same run came back through another process (this stream is stale and goes
   * quietly), or the lease ran out unseen (a long pause) and this run takes it back if it is still free.
   */
  async #check(endpointId: string): Promise<void> {
    const hub = this.#hub;
    const mine = hub.holderHere(endpointId);
    if (!mine) return;
    try {
      const r = await this.#db.query<HolderRow & {process_id: string}>(
        `SELECT ${HOLDER_COLUMNS}, process_id FROM relay_holders WHERE endpoint_id = $1`,
        [endpointId],
      );
      if (hub.holderHere(endpointId) !== mine) return;
      const row = r.rows[0];
      const current = row && !row.expired ? toHolder(row) : undefined;
      if (current && current.listener_id !== mine.listener_id && !exitedHere(current)) {
        hub.takenOver(endpointId, current);
        return;
      }
      if (current && row?.process_id !== this.#processId) {
        hub.stale(endpointId);
        return;
      }
      const result = await this.acquire(endpointId, mine);
      if (!result.held && hub.holderHere(endpointId) === mine) hub.takenOver(endpointId, result.current);
    } catch (err) {
      this.#log(`could not check who holds relay ${endpointId}: ${(err as Error).message}`);
    }
  }

  /** Tells the process streaming to the replaced run (this one, or another sharing the database). */
  #tell(endpointId: string): void {
    if (this.#hub.holderHere(endpointId)) void this.#check(endpointId);
    this.#signals?.notify(SIGNAL_CHANNELS.relay, endpointId).catch((err: unknown) => {
      this.#log(`could not tell other processes of a relay taken over: ${(err as Error).message}`);
    });
  }
}
