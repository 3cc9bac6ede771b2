// Empties every table of the emulator's state (not its clock), for a load that replaces the state.
import type {Queryable} from '../db/database.js';

/** The state's tables; TRUNCATE of them all at once needs no order. */
export const STATE_TABLES = [
  'orgs',
  'api_keys',
  'webhook_endpoints',
  'relay_endpoints',
  'sandboxes',
  'events',
  'deliveries',
  'delivery_attempts',
  'persons',
  'memberships',
  'invitations',
  'sandbox_links',
  'sign_in_links',
  'account_sessions',
  'org_clocks',
] as const;

export async function wipeState(tx: Queryable): Promise<void> {
  await tx.query(`TRUNCATE ${STATE_TABLES.join(', ')}`);
  await tx.query(`DELETE FROM emulator_meta WHERE key = 'default_org_id'`);
}
