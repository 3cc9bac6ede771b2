// Clocks of their own for single orgs, so test files sharing one emulator each move their own time. An org's time
// is the emulator's clock plus an offset stored in org_clocks (no row: it follows the emulator's clock). Every rule
// of the org (its deliveries' schedule, key and sandbox expiry, retention, the times it shows and signs) reads its
// time from here; SQL that decides what is due joins org_clocks, so every process sharing a PostgreSQL agrees.
//
// Org clocks exist only on a manual clock: on a real clock every org lives in the real time. Every move (an org's,
// the emulator's) is checked and made as one: in this process a move of the emulator's clock runs alone (orgs'
// moves run beside one another), and each move's one statement holds the range check in its WHERE, after the
// clocks' lock on a shared database, so moves made at once through any number of processes can never take a
// clock past the times it can show.
import {EARLIEST_CLOCK_MS, LATEST_CLOCK_MS} from '../definitions.js';
import {checkAdvance, checkClockTime, type Clock, ClockRangeError, rangeRefusal} from './clock.js';
import type {Database, Queryable} from './db/database.js';
import {type DatabaseSignals, SIGNAL_CHANNELS} from './db/notify.js';
import {CLOCK_MOVE_LOCK_SQL} from './db/org-clocks.js';

export {orgOffsetSql} from './db/org-clocks.js';

/** How far the orgs' times spread around the emulator's: the least and greatest offset (0 for orgs that follow it). */
export interface OffsetSpread {
  low: number;
  high: number;
}

/** An org clock moved on an emulator whose clock is real: there are none. */
export class RealClockError extends Error {
  constructor() {
    super('the clock is real');
    this.name = 'RealClockError';
  }
}

export interface OrgClocks {
  /** How far the org's time runs ahead of the emulator's clock (0 for an org that follows it). */
  offsetMs(orgId: string): number;
  /** The org's time now. */
  now(orgId: string): Date;
  /** The org's time as a clock (mode and change listeners are the emulator's). */
  clockFor(orgId: string): Clock;
  /**
   * Moves the org's clock forward; resolves with its new time once every process sharing the database knows.
   * ClockRangeError when it would leave the times a clock can show (nothing moved), RealClockError on a real clock.
   */
  advance(orgId: string, ms: number): Promise<Date>;
  /** Sets the org's clock to a time; refused as `advance` is. */
  set(orgId: string, to: Date): Promise<Date>;
  /**
   * Runs `move`, a move of the emulator's clock, alone among this process's clock moves, with the spread of the
   * org clocks it must keep within range (the database's statement checks it again for other processes' moves).
   */
  exclusive<T>(move: (spread: OffsetSpread) => Promise<T>): Promise<T>;
  /**
   * Writes the clocks of a loaded state in the loading transaction (which emptied org_clocks or holds no row of
   * these orgs): each org at its own time, the emulator's clock then reading `emulatorNowMs`. Nothing on a real
   * clock. Once committed, `loaded` with what it returned.
   */
  load(
    tx: Queryable,
    clocks: readonly {org_id: string; now: string}[],
    emulatorNowMs: number,
  ): Promise<LoadedClock[]>;
  /** The clocks a committed load wrote: known here, and told to every process sharing the database. */
  loaded(clocks: readonly LoadedClock[]): Promise<void>;
  /** The org follows the emulator's clock again (its reset, its deletion). */
  forget(orgId: string, tx?: Queryable): Promise<void>;
  /** Called with the org id after its clock moved, here or in another process. */
  onChange(listener: (orgId: string) => void): () => void;
  /** Reads every org's clock again (after the state was replaced). */
  reload(): Promise<void>;
  close(): void;
}

interface Row {
  org_id: string;
  offset_ms: string | number;
  version: string | number;
}

/** An org clock as a load wrote it. */
export type LoadedClock = Row;

/** The emulator clock's time in SQL: kept in emulator_clock when shared by processes, else a parameter ($3). */
const SHARED_BASE = `(SELECT (extract(epoch FROM now) * 1000)::bigint FROM emulator_clock WHERE id = 1)`;
const IN_RANGE = `BETWEEN ${EARLIEST_CLOCK_MS} AND ${LATEST_CLOCK_MS}`;
const RETURNING = 'RETURNING org_id, offset_ms::text, version::text';

/** $1 org, $2 milliseconds forward: written only while the org's new time stays within range. */
const advanceSql = (base: string) => `INSERT INTO org_clocks AS oc (org_id, offset_ms)
    SELECT $1, $2::bigint
     WHERE ${base} + coalesce((SELECT x.offset_ms FROM org_clocks x WHERE x.org_id = $1), 0) + $2::bigint ${IN_RANGE}
    ON CONFLICT (org_id) DO UPDATE SET offset_ms = oc.offset_ms + EXCLUDED.offset_ms, version = oc.version + 1
  ${RETURNING}`;

/** $1 org, $2 the time it is set to (epoch milliseconds), within range. */
const setSql = (base: string) => `INSERT INTO org_clocks AS oc (org_id, offset_ms)
    SELECT $1, $2::bigint - ${base} WHERE $2::bigint ${IN_RANGE}
    ON CONFLICT (org_id) DO UPDATE SET offset_ms = EXCLUDED.offset_ms, version = oc.version + 1
  ${RETURNING}`;

export async function openOrgClocks(
  db: Database,
  base: Clock,
  signals?: DatabaseSignals,
  log: (line: string) => void = () => undefined,
): Promise<OrgClocks> {
  const clocks = new OrgClockSet(db, base, signals, log);
  await clocks.open();
  return clocks;
}

/**
 * The offsets known here, kept in the order of their version numbers whichever way a move is heard of (this
 * process's own write, a notification, a re-read), and the listeners told when one changes.
 */
class OrgClockSet implements OrgClocks {
  readonly #offsets = new Map<string, {ms: number; version: number}>();
  readonly #listeners = new Set<(orgId: string) => void>();
  readonly #unsubscribe: (() => void)[] = [];
  /** The moves of the emulator's clock in this process, one after another; each waits for the org moves before it. */
  #exclusiveMoves: Promise<unknown> = Promise.resolve();
  /** The org clock moves in flight in this process: they run beside one another, never beside an emulator move. */
  readonly #orgMoves = new Set<Promise<unknown>>();
  /** The schema this emulator's tables live in: emulators on other schemas hear the same channel. */
  #schema = '';
  /** The emulator's clock is manual and kept in the database (several processes share it). */
  readonly #sharedBase: boolean;

  constructor(
    private readonly db: Database,
    private readonly base: Clock,
    private readonly signals: DatabaseSignals | undefined,
    private readonly log: (line: string) => void,
  ) {
    this.#sharedBase = signals !== undefined && base.mode === 'manual';
  }

  async open(): Promise<void> {
    // A data dir this process owns, last run on a manual clock, keeps no org clock under a real one.
    if (this.base.mode === 'real' && this.db.kind === 'pglite') await this.db.query('DELETE FROM org_clocks');
    await this.reload();
    const signals = this.signals;
    if (!signals) return;
    const {rows} = await this.db.query<{schema: string}>('SELECT current_schema() AS schema');
    this.#schema = rows[0]?.schema ?? '';
    this.#unsubscribe.push(
      signals.on(SIGNAL_CHANNELS.orgClock, (payload) => {
        const [ofSchema, orgId, version, ms] = payload.split(':');
        if (ofSchema === this.#schema && orgId) this.#apply(orgId, Number(ms), Number(version));
      }),
      // A state loaded or replaced through another process (its orgs written) may bring clocks or take them away.
      signals.on(SIGNAL_CHANNELS.change, (table) => {
        if (table === 'orgs') this.#reread();
      }),
      signals.onReconnect(() => this.#reread()),
    );
  }

  #reread(): void {
    this.reload().catch((err: unknown) =>
      this.log(`could not re-read the org clocks: ${(err as Error).message}`),
    );
  }

  // Arrow functions, so they can be handed on alone (`orgNow: orgClocks.now`).
  readonly offsetMs = (orgId: string): number => this.#offsets.get(orgId)?.ms ?? 0;

  readonly now = (orgId: string): Date => new Date(this.base.nowMs() + this.offsetMs(orgId));

  clockFor(orgId: string): Clock {
    return {
      mode: this.base.mode,
      scale: this.base.scale,
      now: () => this.now(orgId),
      nowMs: () => this.base.nowMs() + this.offsetMs(orgId),
      onChange: this.base.onChange,
    };
  }

  advance(orgId: string, ms: number): Promise<Date> {
    return this.#orgMove(async () => {
      this.#refuseOnRealClock();
      checkAdvance(this.now(orgId).getTime(), ms);
      return this.#store(orgId, advanceSql, ms);
    });
  }

  set(orgId: string, to: Date): Promise<Date> {
    return this.#orgMove(async () => {
      this.#refuseOnRealClock();
      return this.#store(orgId, setSql, checkClockTime(to.getTime()));
    });
  }

  exclusive<T>(move: (spread: OffsetSpread) => Promise<T>): Promise<T> {
    return this.#alone(() => {
      let low = 0;
      let high = 0;
      for (const {ms} of this.#offsets.values()) {
        low = Math.min(low, ms);
        high = Math.max(high, ms);
      }
      return move({low, high});
    });
  }

  async load(
    tx: Queryable,
    clocks: readonly {org_id: string; now: string}[],
    emulatorNowMs: number,
  ): Promise<LoadedClock[]> {
    if (this.base.mode === 'real' || clocks.length === 0) return [];
    // A version past any a process may know of the org from before the load (the real time in milliseconds), so
    // every process sharing the database takes the loaded clock when it reads it again.
    const {rows} = await tx.query<Row>(
      `INSERT INTO org_clocks (org_id, offset_ms, version)
       SELECT c.org_id, c.offset_ms, (extract(epoch FROM clock_timestamp()) * 1000)::bigint
         FROM json_populate_recordset(NULL::org_clocks, $1::json) c
       ${RETURNING}`,
      [JSON.stringify(clocks.map((c) => ({org_id: c.org_id, offset_ms: Date.parse(c.now) - emulatorNowMs})))],
    );
    return rows;
  }

  async loaded(clocks: readonly LoadedClock[]): Promise<void> {
    for (const c of clocks) await this.#announce(c.org_id, Number(c.offset_ms), Number(c.version), false);
    await this.signals?.sync();
  }

  async forget(orgId: string, tx?: Queryable): Promise<void> {
    await (tx ?? this.db).query('DELETE FROM org_clocks WHERE org_id = $1', [orgId]);
    // Version 0: gone, whatever version was known.
    await this.#announce(orgId, 0, 0);
  }

  onChange(listener: (orgId: string) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async reload(): Promise<void> {
    const {rows} = await this.db.query<Row>('SELECT org_id, offset_ms::text, version::text FROM org_clocks');
    const seen = new Set<string>();
    for (const r of rows) {
      seen.add(r.org_id);
      this.#apply(r.org_id, Number(r.offset_ms), Number(r.version));
    }
    for (const orgId of [...this.#offsets.keys()]) if (!seen.has(orgId)) this.#apply(orgId, 0, 0);
  }

  close(): void {
    for (const u of this.#unsubscribe.splice(0)) u();
  }

  #refuseOnRealClock(): void {
    if (this.base.mode === 'real') throw new RealClockError();
  }

  /**
   * Runs `fn`, a move of the emulator's clock, once this process's earlier clock moves (the emulator's and every
   * org's) are done, whatever their outcome: it reads the spread of the org clocks, which none may change meanwhile.
   */
  #alone<T>(fn: () => Promise<T>): Promise<T> {
    const before = Promise.all([this.#exclusiveMoves, ...this.#orgMoves]);
    const run = before.then(fn, fn);
    this.#exclusiveMoves = run.catch(() => undefined);
    return run;
  }

  /**
   * Runs `fn`, a move of one org's clock, once the emulator's clock moves asked for before it are done. Org moves
   * run beside one another: each is one statement whose WHERE checks its own range (under the clocks' lock on a
   * shared database), so a hundred orgs moving at once do not queue behind one another's round trips.
   */
  #orgMove<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#exclusiveMoves.then(fn, fn);
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.#orgMoves.add(settled);
    void settled.then(() => this.#orgMoves.delete(settled));
    return run;
  }

  /** A move heard of; an older version than the one known changes nothing (version 0: the clock is gone). */
  #apply(orgId: string, ms: number, version: number): void {
    const known = this.#offsets.get(orgId);
    if (known && known.version >= version && version !== 0) return;
    if (ms === 0 && version === 0) this.#offsets.delete(orgId);
    else this.#offsets.set(orgId, {ms, version});
    if ((known?.ms ?? 0) !== ms) for (const listener of this.#listeners) listener(orgId);
  }

  /**
   * Writes a move under the clocks' lock, its range check in the statement's WHERE, and resolves with the org's
   * new time once every process sharing the database knows it. Nothing written: the move would leave the range.
   */
  async #store(orgId: string, sql: (base: string) => string, value: number): Promise<Date> {
    const params: unknown[] = [orgId, value];
    if (!this.#sharedBase) params.push(this.base.nowMs());
    const statement = sql(this.#sharedBase ? SHARED_BASE : '$3::bigint');
    // PGlite is one session this process owns: its statement alone is the move, as nothing can run beside it. A
    // transaction there would buy nothing and hold the session (every other query waiting) for four round trips.
    const rows =
      this.db.kind === 'pglite'
        ? (await this.db.query<Row>(statement, params)).rows
        : await this.db.transaction(async (tx) => {
            await tx.query(CLOCK_MOVE_LOCK_SQL);
            return (await tx.query<Row>(statement, params)).rows;
          });
    const row = rows[0];
    if (!row) throw new ClockRangeError(rangeRefusal());
    await this.#announce(orgId, Number(row.offset_ms), Number(row.version));
    return this.now(orgId);
  }

  async #announce(orgId: string, ms: number, version: number, sync = true): Promise<void> {
    this.#apply(orgId, ms, version);
    if (!this.signals) return;
    await this.signals.notify(SIGNAL_CHANNELS.orgClock, `${this.#schema}:${orgId}:${version}:${ms}`);
    if (sync) await this.signals.sync();
  }
}
