// The deliveries table as people and API keys read it (the engine's own SQL is in ../delivery), and retention.
import {type DeliveryStatus, MAX_DELIVERIES_LISTED, RETENTION_MS} from '../../definitions.js';
import type {EndpointHealth} from '../../schemas/emulator.js';
import type {Delivery} from '../../schemas/index.js';
import type {Database, Queryable} from './database.js';
import {orgOffsetSql} from './org-clocks.js';
import {iso, isoRequired} from './repository-support.js';

/** A place in the order of failed deliveries: a creation time (microseconds since the epoch) and an id. */
export interface FailedPlace {
  atUs: string;
  id: string;
}

/**
 * Retention: events older than the cut-off go, and their deliveries and attempts with them. Both tables in one
 * statement: it runs at every clock move, and a round trip costs more than the range scans when nothing is old.
 */
export async function purgeOlderThan(db: Database, cutoff: Date): Promise<number> {
  // An org with a clock of its own keeps what its own time says (the first bound keeps the index range scan).
  const olderThan = (table: string) =>
    `DELETE FROM ${table} WHERE created_at < $1::timestamptz + (SELECT coalesce(max(offset_ms), 0) FROM org_clocks) * interval '1 millisecond'
        AND created_at < $1::timestamptz + ${orgOffsetSql(`${table}.org_id`)} * interval '1 millisecond' RETURNING 1`;
  const {rows} = await db.query<{n: number}>(
    `WITH d AS (${olderThan('deliveries')}), e AS (${olderThan('events')})
     SELECT ((SELECT count(*) FROM d) + (SELECT count(*) FROM e))::int AS n`,
    [cutoff],
  );
  return rows[0]?.n ?? 0;
}

/**
 * Deletes every delivery of an endpoint or an org (their attempts go with them) in the caller's transaction, and
 * returns the owners of the live leases they had: the workers (of any process sharing the database) that may hold
 * them to attempt, which the deletion must stop. A claim made at the same moment holds its rows until it commits,
 * so its lease is seen here whichever commits first.
 */
export async function deleteDeliveriesOf(
  tx: Queryable,
  of: {endpointId: string} | {orgId: string},
  realNow: Date,
): Promise<string[]> {
  const [column, id] = 'endpointId' in of ? ['endpoint_id', of.endpointId] : ['org_id', of.orgId];
  const {rows} = await tx.query<{holder: string}>(
    `WITH gone AS (DELETE FROM deliveries WHERE ${column} = $1 RETURNING locked_by, locked_until)
     SELECT DISTINCT locked_by AS holder FROM gone WHERE locked_by IS NOT NULL AND locked_until > $2`,
    [id, realNow],
  );
  return rows.map((r) => r.holder);
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
   * The most recent deliveries to one endpoint, newest first (by creation time, then by the order the emulator
   * created them: a manual clock gives many deliveries one instant), within the retention window by the given clock
   * time; with a status, only those in it.
   */
  async listForEndpoint(endpointId: string, now: Date, status?: DeliveryStatus): Promise<Delivery[]> {
    const since = new Date(now.getTime() - RETENTION_MS);
    const {rows} = await this.db.query<DeliveryRow>(
      `SELECT ${DELIVERY_RECORD_COLUMNS}
         FROM deliveries
        WHERE endpoint_id = $1 AND created_at > $2 AND ($3::text IS NULL OR status = $3)
        ORDER BY created_at DESC, seq DESC
        LIMIT ${MAX_DELIVERIES_LISTED}`,
      [endpointId, since, status ?? null],
    );
    return rows.map(toDeliveryRecord);
  }

  /**
   * The failed deliveries to these endpoints created after `since`, oldest first, at most `limit`, each with its
   * place in that order (`after` takes one, to read on from there; a place stays valid if its delivery goes).
   */
  async failedSince(
    endpointIds: readonly string[],
    since: Date,
    page: {limit: number; after?: FailedPlace},
  ): Promise<{id: string; place: FailedPlace}[]> {
    if (endpointIds.length === 0) return [];
    const {rows} = await this.db.query<{id: string; at_us: string}>(
      `SELECT id, (extract(epoch FROM created_at) * 1000000)::bigint::text AS at_us FROM deliveries
        WHERE endpoint_id = ANY($1::text[]) AND status = 'failed' AND created_at > $2
          AND ($3::bigint IS NULL
               OR (created_at, id) > (timestamptz 'epoch' + $3::bigint * interval '1 microsecond', $4::text))
        ORDER BY created_at, id
        LIMIT $5`,
      [endpointIds, since, page.after?.atUs ?? null, page.after?.id ?? null, page.limit],
    );
    return rows.map((r) => ({id: r.id, place: {atUs: String(r.at_us), id: r.id}}));
  }

  /**
   * For each endpoint, how its most recent deliveries (those listForEndpoint shows) are going: counts by outcome
   * and the newest delivery. Two statements for every endpoint at once, however many there are.
   */
  async healthOfEndpoints(endpointIds: readonly string[], now: Date): Promise<EndpointHealth[]> {
    if (endpointIds.length === 0) return [];
    const since = new Date(now.getTime() - RETENTION_MS);
    const [counts, last] = await Promise.all([
      this.db.query<{endpoint_id: string; recent: number; failed: number; pending: number}>(
        `SELECT endpoint_id, count(*)::int AS recent,
                count(*) FILTER (WHERE status = 'failed')::int AS failed,
                count(*) FILTER (WHERE status = 'pending')::int AS pending
           FROM (SELECT endpoint_id, status,
                        row_number() OVER (PARTITION BY endpoint_id ORDER BY created_at DESC, seq DESC) AS n
                   FROM deliveries
                  WHERE endpoint_id = ANY($1::text[]) AND created_at > $2) recent
          WHERE n <= ${MAX_DELIVERIES_LISTED}
          GROUP BY endpoint_id`,
        [endpointIds, since],
      ),
      this.db.query<DeliveryRow & {endpoint_id: string}>(
        `SELECT DISTINCT ON (endpoint_id) endpoint_id, ${DELIVERY_RECORD_COLUMNS}
           FROM deliveries
          WHERE endpoint_id = ANY($1::text[]) AND created_at > $2
          ORDER BY endpoint_id, created_at DESC, seq DESC`,
        [endpointIds, since],
      ),
    ]);
    const countsOf = new Map(counts.rows.map((r) => [r.endpoint_id, r]));
    const lastOf = new Map(last.rows.map((r) => [r.endpoint_id, toDeliveryRecord(r)]));
    return endpointIds.map((id) => {
      const c = countsOf.get(id);
      return {
        endpoint_id: id,
        recent: Number(c?.recent ?? 0),
        failed: Number(c?.failed ?? 0),
        pending: Number(c?.pending ?? 0),
        last: lastOf.get(id) ?? null,
      };
    });
  }
}
