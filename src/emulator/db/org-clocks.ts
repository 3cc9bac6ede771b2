// The table of orgs' own clocks (org_clocks): the offset of each org that has a clock of its own, in SQL the
// statements deciding what is due join. The clocks themselves (moving them, telling other processes) are in
// ../org-clocks.ts; the lock every clock move takes is here, beside the table it guards.

/** SQL: the milliseconds the clock of the org `orgIdSql` runs ahead of the emulator's (0 without its own clock). */
export function orgOffsetSql(orgIdSql: string): string {
  return `coalesce((SELECT oc.offset_ms FROM org_clocks oc WHERE oc.org_id = ${orgIdSql}), 0)`;
}

/**
 * Taken first, in its own statement, by every transaction that moves a clock (the emulator's shared clock, an
 * org's): moves made at once, through one process or several, then run one after another, and the statement after
 * it reads every clock as the moves before it left it, so its range check holds whatever runs beside it. The
 * two-key form keeps it apart from the claim's endpoint locks.
 */
export const CLOCK_MOVE_LOCK_SQL = 'SELECT pg_advisory_xact_lock(24258, 1)';

/** SQL: the least and greatest offset of any org's time from the emulator's (0 included: orgs that follow it). */
export const OFFSET_SPREAD_SQL = `SELECT least(0, min(offset_ms))::text AS low, greatest(0, max(offset_ms))::text AS high
  FROM org_clocks`;
