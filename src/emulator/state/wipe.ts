// Empties every table of the emulator's state (not its clock), for a load that replaces the state.
import type {Queryable} from '../db/database.js';
import {STATE_TABLES} from '../db/tables.js';

/** TRUNCATE of every state table at once needs no order. */
export async function wipeState(tx: Queryable): Promise<void> {
  await tx.query(`TRUNCATE ${STATE_TABLES.join(', ')}`);
  await tx.query(`DELETE FROM emulator_meta WHERE key = 'default_org_id'`);
}
