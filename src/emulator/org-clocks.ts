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

export async function openOrgClocks(
  db: Database,
  base: Clock,
  signals?: DatabaseSignals,
  log: (line: string) => void = () => undefined,
): Promise<OrgClocks> {
  const offsets = new Map<string, {ms: number; version: number}>();
  const listeners = new Set<(orgId: string) => void>();
  const tell = (orgId: string) => {
    for (const listener of listeners) listener(orgId);
  };
  const apply = (orgId: string, ms: number, version: number) => {
    const known = offsets.get(orgId);
    if (known && known.version >= version && version !== 0) return;
    if (ms === 0 && version === 0) offsets.delete(orgId);
    else offsets.set(orgId, {ms, version});
    if ((known?.ms ?? 0) !== ms) tell(orgId);
  };
  const readAll = async () => {
    const {rows} = await db.query<Row>('SELECT org_id, offset_ms::text, version::text FROM org_clocks');
    const seen = new Set<string>();
    for (const r of rows) {
      seen.add(r.org_id);
      apply(r.org_id, Number(r.offset_ms), Number(r.version));
    }
    for (const orgId of [...offsets.keys()]) if (!seen.has(orgId)) apply(orgId, 0, 0);
  };
  await readAll();

  let schema = '';
  const unsubscribe: (() => void)[] = [];
  if (signals) {
    const {rows} = await db.query<{schema: string}>('SELECT current_schema() AS schema');
    schema = rows[0]?.schema ?? '';
    unsubscribe.push(
      signals.on(SIGNAL_CHANNELS.orgClock, (payload) => {
        const [ofSchema, orgId, version, ms] = payload.split(':');
        if (ofSchema === schema && orgId) apply(orgId, Number(ms), Number(version));
      }),
      signals.onReconnect(() => {
        readAll().catch((err: unknown) => log(`could not re-read the org clocks: ${(err as Error).message}`));
      }),
    );
  }

  const announce = async (orgId: string, ms: number, version: number) => {
    apply(orgId, ms, version);
    if (!signals) return;
    await signals.notify(SIGNAL_CHANNELS.orgClock, `${schema}:${orgId}:${version}:${ms}`);
    await signals.sync();
  };
  const offsetMs = (orgId: string) => offsets.get(orgId)?.ms ?? 0;
  const now = (orgId: string) => new Date(base.nowMs() + offsetMs(orgId));
  const store = async (orgId: string, sql: string, ms: number) => {
    const {rows} = await db.query<Row>(sql, [orgId, ms]);
    const row = rows[0];
    if (row) await announce(orgId, Number(row.offset_ms), Number(row.version));
    return now(orgId);
  };

  return {
    offsetMs,
    now,
    clockFor(orgId) {
      return {
        mode: base.mode,
        now: () => now(orgId),
        nowMs: () => base.nowMs() + offsetMs(orgId),
        onChange: base.onChange,
      };
    },
    advance(orgId, ms) {
      checkAdvance(now(orgId).getTime(), ms);
      return store(
        orgId,
        `INSERT INTO org_clocks (org_id, offset_ms) VALUES ($1, $2)
           ON CONFLICT (org_id) DO UPDATE SET offset_ms = org_clocks.offset_ms + EXCLUDED.offset_ms,
                                              version = org_clocks.version + 1
         RETURNING org_id, offset_ms::text, version::text`,
        ms,
      );
    },
    set(orgId, to) {
      const ms = checkClockTime(to.getTime()) - base.nowMs();
      return store(
        orgId,
        `INSERT INTO org_clocks (org_id, offset_ms) VALUES ($1, $2)
           ON CONFLICT (org_id) DO UPDATE SET offset_ms = EXCLUDED.offset_ms, version = org_clocks.version + 1
         RETURNING org_id, offset_ms::text, version::text`,
        ms,
      );
    },
    async forget(orgId, tx) {
      await (tx ?? db).query('DELETE FROM org_clocks WHERE org_id = $1', [orgId]);
      // Version 0: gone, whatever version was known.
      await announce(orgId, 0, 0);
    },
    reload: readAll,
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close() {
      for (const u of unsubscribe.splice(0)) u();
    },
  };
}
