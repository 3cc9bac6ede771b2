// Which org a record belongs to, by its id: what the control surface asks before it lets a control token of one
// org act on a key, an endpoint, a sandbox, an event or a delivery named in a request.
import type {Queryable} from './database.js';

/** The records a control request may name, each with its table (every one of them has an org_id). */
const TABLES = {
  key: 'api_keys',
  endpoint: 'webhook_endpoints',
  sandbox: 'sandboxes',
  event: 'events',
  delivery: 'deliveries',
} as const;

export type OwnedRecord = keyof typeof TABLES;

/** The org of the record with this id, or undefined when there is none. */
export async function orgOwning(db: Queryable, kind: OwnedRecord, id: string): Promise<string | undefined> {
  const {rows} = await db.query<{org_id: string}>(`SELECT org_id FROM ${TABLES[kind]} WHERE id = $1`, [id]);
  return rows[0]?.org_id;
}
