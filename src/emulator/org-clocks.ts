// Clocks of their own for single orgs, so test files sharing one emulator each move their own time. An org's time
// is the emulator's clock plus an offset stored in org_clocks (no row: it follows the emulator's clock). Every rule
// of the org (its deliveries' schedule, key and sandbox expiry, retention, the times it shows and signs) reads its
// time from here; SQL that decides what is due joins org_clocks, so every process sharing a PostgreSQL agrees.
import {checkAdvance, checkClockTime, type Clock} from './clock.js';
import type {Database, Queryable} from './db/database.js';
import {type DatabaseSignals, SIGNAL_CHANNELS} from './db/notify.js';

export {orgOffsetSql} from './db/org-clocks.js';

export interface OrgClocks {
  /** How far the org's time runs ahead of the emulator's clock (0 for an org that follows it). */
  offsetMs(orgId: string): number;
  /** The org's time now. */
  now(orgId: string): Date;
  /** The org's time as a clock (mode and change listeners are the emulator's). */
  clockFor(orgId: string): Clock;
  /** Moves the org's clock forward; resolves with its new time once every process sharing the database knows. */
  advance(orgId: string, ms: number): Promise<Date>;
  /** Sets the org's clock to a time. */
  set(orgId: string, to: Date): Promise<Date>;
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

const ADVANCE_SQL = `INSERT INTO org_clocks (org_id, offset_ms) VALUES ($1, $2)
    ON CONFLICT (org_id) DO UPDATE SET offset_ms = org_clocks.offset_ms + EXCLUDED.offset_ms,
                                       version = org_clocks.version + 1
  RETURNING org_id, offset_ms::text, version::text`;

const SET_SQL = `INSERT INTO org_clocks (org_id, offset_ms) VALUES ($1, $2)
    ON CONFLICT (org_id) DO UPDATE SET offset_ms = EXCLUDED.offset_ms, version = org_clocks.version + 1
  RETURNING org_id, offset_ms::text, version::text`;

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
  /** The schema this emulator's tables live in: emulators on other schemas hear the same channel. */
  #schema = '';

  constructor(
    private readonly db: Database,
    private readonly base: Clock,
    private readonly signals: DatabaseSignals | undefined,
    private readonly log: (line: string) => void,
  ) {}

  async open(): Promise<void> {
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
      signals.onReconnect(() => {
        this.reload().catch((err: unknown) =>
          this.log(`could not re-read the org clocks: ${(err as Error).message}`),
        );
      }),
    );
  }

  // Arrow functions, so they can be handed on alone (`orgNow: orgClocks.now`).
  readonly offsetMs = (orgId: string): number => this.#offsets.get(orgId)?.ms ?? 0;

  readonly now = (orgId: string): Date => new Date(this.base.nowMs() + this.offsetMs(orgId));

  clockFor(orgId: string): Clock {
    return {
      mode: this.base.mode,
      now: () => this.now(orgId),
      nowMs: () => this.base.nowMs() + this.offsetMs(orgId),
      onChange: this.base.onChange,
    };
  }

  advance(orgId: string, ms: number): Promise<Date> {
    checkAdvance(this.now(orgId).getTime(), ms);
    return this.#store(orgId, ADVANCE_SQL, ms);
  }

  set(orgId: string, to: Date): Promise<Date> {
    return this.#store(orgId, SET_SQL, checkClockTime(to.getTime()) - this.base.nowMs());
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

  /** A move heard of; an older version than the one known changes nothing (version 0: the clock is gone). */
  #apply(orgId: string, ms: number, version: number): void {
    const known = this.#offsets.get(orgId);
    if (known && known.version >= version && version !== 0) return;
    if (ms === 0 && version === 0) this.#offsets.delete(orgId);
    else this.#offsets.set(orgId, {ms, version});
    if ((known?.ms ?? 0) !== ms) for (const listener of this.#listeners) listener(orgId);
  }

  /** Writes a move, and resolves with the org's new time once every process sharing the database knows it. */
  async #store(orgId: string, sql: string, ms: number): Promise<Date> {
    const {rows} = await this.db.query<Row>(sql, [orgId, ms]);
    const row = rows[0];
    if (row) await this.#announce(orgId, Number(row.offset_ms), Number(row.version));
    return this.now(orgId);
  }

  async #announce(orgId: string, ms: number, version: number): Promise<void> {
    this.#apply(orgId, ms, version);
    if (!this.signals) return;
    await this.signals.notify(SIGNAL_CHANNELS.orgClock, `${this.#schema}:${orgId}:${version}:${ms}`);
    await this.signals.sync();
  }
}
