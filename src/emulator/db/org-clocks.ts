// The table of orgs' own clocks (org_clocks): the offset of each org that has a clock of its own, in SQL the
// statements deciding what is due join. The clocks themselves (moving them, telling other processes) are in
// ../org-clocks.ts.

/** SQL: the milliseconds the clock of the org `orgIdSql` runs ahead of the emulator's (0 without its own clock). */
export function orgOffsetSql(orgIdSql: string): string {
  return `coalesce((SELECT oc.offset_ms FROM org_clocks oc WHERE oc.org_id = ${orgIdSql}), 0)`;
}
