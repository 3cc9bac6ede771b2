// A manual clock shared by every emulator process on one PostgreSQL: its time lives in emulator_clock, a move
// through any process is written there and announced on svc_clock, and every process applies the moves in the
// order of their version numbers, whichever way (its own write, a notification, a re-read) it hears of them.
import {EARLIEST_CLOCK_MS, LATEST_CLOCK_MS} from '../definitions.js';
import {
  ClockRangeError,
  checkAdvance,
  checkClockTime,
  clockListeners,
  type ManualClock,
  manualClockOver,
} from './clock.js';
import type {Database} from './db/database.js';
import {type DatabaseSignals, SIGNAL_CHANNELS} from './db/notify.js';
import {CLOCK_MOVE_LOCK_SQL, OFFSET_SPREAD_SQL} from './db/org-clocks.js';

export interface SharedManualClock extends ManualClock {
  /** Stops listening for moves made elsewhere. */
  close(): void;
}

interface StoredTime {
  now_ms: string | number;
  version: string | number;
}

/**
 * Moves the clock to `to` (SQL over its current `now`) only while it and every org's own clock (an offset from
 * it) stay within the times a clock can show: the check is in the statement, run under the clocks' lock.
 */
const move = (to: string) => `WITH spread AS (${OFFSET_SPREAD_SQL}),
  moved AS (UPDATE emulator_clock SET now = ${to}, version = version + 1
             WHERE id = 1
               AND (extract(epoch FROM ${to}) * 1000)::bigint + (SELECT low::bigint FROM spread) >= ${EARLIEST_CLOCK_MS}
               AND (extract(epoch FROM ${to}) * 1000)::bigint + (SELECT high::bigint FROM spread) <= ${LATEST_CLOCK_MS}
             RETURNING now, version)`;

const MOVED = `SELECT now_ms, version, pg_notify('${SIGNAL_CHANNELS.clock}', current_schema() || ':' || version || ':' || now_ms)
                 FROM (SELECT (extract(epoch FROM now) * 1000)::bigint::text AS now_ms, version::text AS version
                         FROM moved) m`;

/**
 * Joins the shared clock, creating it at `start` when no process has made it yet. A process joining a clock
 * that already exists takes its time, so the processes never disagree about what is due.
 */
export async function openSharedManualClock(
  db: Database,
  signals: DatabaseSignals,
  start: Date,
  log: (line: string) => void = () => undefined,
): Promise<SharedManualClock> {
  checkClockTime(start.getTime());
  await db.query('INSERT INTO emulator_clock (id, now) VALUES (1, $1) ON CONFLICT (id) DO NOTHING', [start]);
  const read = async () => {
    const {rows} = await db.query<StoredTime>(
      'SELECT (extract(epoch FROM now) * 1000)::bigint::text AS now_ms, version::text AS version FROM emulator_clock WHERE id = 1',
    );
    const row = rows[0];
    if (!row) throw new Error('the shared clock row is missing');
    return row;
  };
  const first = await read();
  let current = Number(first.now_ms);
  let version = Number(first.version);
  const listeners = clockListeners();

  const apply = (ms: number, v: number) => {
    if (!Number.isFinite(ms) || !Number.isFinite(v) || v <= version) return;
    version = v;
    if (ms === current) return;
    current = ms;
    listeners.notify(new Date(ms));
  };
  const applyRow = (row: StoredTime) => apply(Number(row.now_ms), Number(row.version));

  // A notification carries the move; emulators on other schemas of the same database hear the same channel, so
  // each names its schema. Moves apply in version order, so a late one changes nothing.
  const {rows: schemaRows} = await db.query<{schema: string}>('SELECT current_schema() AS schema');
  const schema = schemaRows[0]?.schema ?? '';
  const reread = () => {
    read().then(applyRow, (err: unknown) =>
      log(`could not re-read the shared clock: ${(err as Error).message}`),
    );
  };
  const unsubscribe = [
    signals.on(SIGNAL_CHANNELS.clock, (payload) => {
      const [ofSchema, v, ms] = payload.split(':');
      if (ofSchema === schema) apply(Number(ms), Number(v));
    }),
    // Moves announced while the connection was down are read back.
    signals.onReconnect(reread),
  ];

  // Moves of this process are written one after another, in the order they were made, each under the clocks'
  // lock; a move the statement refuses (it would take a clock out of range) rejects with ClockRangeError.
  let writes: Promise<void> = Promise.resolve();
  const write = (sql: string, params: unknown[]) => {
    const next = writes.then(async () => {
      const {rows} = await db.transaction(async (tx) => {
        await tx.query(CLOCK_MOVE_LOCK_SQL);
        return tx.query<StoredTime>(sql, params);
      });
      if (!rows[0]) {
        throw new ClockRangeError(
          'would move the clock, or an org clock that runs ahead of or behind it, outside the times it can show; nothing moved',
        );
      }
      applyRow(rows[0]);
      // Answered once the other processes have been sent the move, as every other write is.
      await signals.sync();
    });
    writes = next.catch(() => undefined);
    return next;
  };
  const failed = (what: string) => (err: unknown) => {
    if (!(err instanceof ClockRangeError))
      log(`could not ${what} the shared clock: ${(err as Error).message}`);
  };
  let pending: Promise<void> = Promise.resolve();

  const clock = manualClockOver(() => current, listeners, {
    advance(ms) {
      checkAdvance(current, ms);
      pending = write(`${move("now + $1::bigint * interval '1 millisecond'")} ${MOVED}`, [ms]);
      pending.catch(failed('move'));
      return new Date(current + ms);
    },
    set(to) {
      checkClockTime(to.getTime());
      pending = write(`${move('$1::timestamptz')} ${MOVED}`, [to]);
      pending.catch(failed('set'));
      return to;
    },
    synced: () => pending,
    async refresh() {
      await pending.catch(() => undefined);
      applyRow(await read());
    },
  });
  return {
    ...clock,
    close() {
      for (const u of unsubscribe) u();
    },
  };
}
