// The deliveries table as people and API keys read it (the engine's own SQL is in ../delivery), and retention.
import {type DeliveryStatus, MAX_DELIVERIES_LISTED, RETENTION_MS} from '../../definitions.js';
import type {Delivery} from '../../schemas/index.js';
import type {Database, Queryable} from './database.js';
import {iso, isoRequired} from './repository-support.js';

/** Retention: events older than the cut-off go, and their deliveries and attempts with them. */
export async function purgeOlderThan(db: Database, cutoff: Date): Promise<number> {
  const deliveries = await db.query('DELETE FROM deliveries WHERE created_at < $1', [cutoff]);
  const events = await db.query('DELETE FROM events WHERE created_at < $1', [cutoff]);
  return deliveries.rowCount + events.rowCount;
}

export interface DeliveryRow {
  id: string;
  event_id: string;
  event_type: string;
  status: string;
  attempts: number;
  created_at: Date | string;
  last_attempt_at: Date | string | null;
  next_attempt_at: Date | string | null;
  last_status_code: number | null;
}

export function toDeliveryRecord(r: DeliveryRow): Delivery {
  return {
    id: r.id,
    event_id: r.event_id,
    event_type: r.event_type,
    status: r.status as DeliveryStatus,
    attempts: Number(r.attempts),
    created_at: isoRequired(r.created_at),
    last_attempt_at: iso(r.last_attempt_at),
    next_attempt_at: iso(r.next_attempt_at),
    last_status_code: r.last_status_code == null ? null : Number(r.last_status_code),
  };
}

export const DELIVERY_RECORD_COLUMNS =
  'id, event_id, event_type, status, attempts, created_at, last_attempt_at, next_attempt_at, last_status_code';

/** Reads of the deliveries table for people and API keys. */
export class DeliveryReadRepository {
  constructor(private readonly db: Queryable) {}

  /**
   * The most recent deliveries to one endpoint, newest first, within the retention window by the given clock
   * time; with a status, only those in it.
   */
  async listForEndpoint(endpointId: string, now: Date, status?: DeliveryStatus): Promise<Delivery[]> {
    const since = new Date(now.getTime() - RETENTION_MS);
    const {rows} = await this.db.query<DeliveryRow>(
      `SELECT ${DELIVERY_RECORD_COLUMNS}
         FROM deliveries
        WHERE endpoint_id = $1 AND created_at > $2 AND ($3::text IS NULL OR status = $3)
        ORDER BY created_at DESC, id DESC
        LIMIT ${MAX_DELIVERIES_LISTED}`,
      [endpointId, since, status ?? null],
    );
    return rows.map(toDeliveryRecord);
  }
}
