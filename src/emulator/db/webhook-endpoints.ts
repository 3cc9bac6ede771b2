// The webhook_endpoints table: signing secrets stored only encrypted under the vault key.
import {MAX_ENDPOINTS_PER_ORG} from '../../definitions.js';
import type {WebhookEndpoint} from '../../schemas/index.js';
import {newId} from '../../ids.js';
import type {Database} from './database.js';
import {deleteDeliveriesOf} from './deliveries.js';
import {type CachedRead, isoRequired, LimitError, OrgGoneError, uncached} from './repository-support.js';

interface EndpointRow {
  id: string;
  org_id: string;
  url: string;
  events: string[];
  description: string | null;
  secret_ciphertext: string;
  created_at: Date | string;
}

export interface StoredEndpoint extends WebhookEndpoint {
  org_id: string;
  secret_ciphertext: string;
}

const ENDPOINT_COLUMNS = 'id, org_id, url, events, description, secret_ciphertext, created_at';

function toEndpoint(r: EndpointRow): StoredEndpoint {
  return {
    id: r.id,
    org_id: r.org_id,
    url: r.url,
    events: r.events,
    description: r.description,
    secret_ciphertext: r.secret_ciphertext,
    created_at: isoRequired(r.created_at),
  };
}

/** The wire record: never the signing secret. */
export function endpointRecord(e: StoredEndpoint): WebhookEndpoint {
  return {id: e.id, url: e.url, events: e.events, description: e.description, created_at: e.created_at};
}

export class WebhookEndpointRepository {
  constructor(
    private readonly db: Database,
    private readonly cached: CachedRead = uncached,
  ) {}

  async create(input: {
    orgId: string;
    url: string;
    events: string[];
    description: string | null;
    secretCiphertext: string;
    now: Date;
  }): Promise<StoredEndpoint> {
    const id = newId('webhookEndpoint');
    await this.db.transaction(async (tx) => {
      const org = await tx.query('SELECT id FROM orgs WHERE id = $1 FOR UPDATE', [input.orgId]);
      if (org.rows.length === 0) throw new OrgGoneError(input.orgId);
      const {rows} = await tx.query<{n: number | string}>(
        // Relay endpoints of `svc listen` are the emulator's own and do not take one of the org's places.
        `SELECT count(*) AS n FROM webhook_endpoints w
          WHERE w.org_id = $1 AND NOT EXISTS (SELECT 1 FROM relay_endpoints r WHERE r.endpoint_id = w.id)`,
        [input.orgId],
      );
      if (Number(rows[0]?.n ?? 0) >= MAX_ENDPOINTS_PER_ORG) {
        throw new LimitError(
          `the org already has ${MAX_ENDPOINTS_PER_ORG} webhook endpoints; delete one before adding another`,
        );
      }
      await tx.query(
        `INSERT INTO webhook_endpoints (${ENDPOINT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [id, input.orgId, input.url, input.events, input.description, input.secretCiphertext, input.now],
      );
    });
    return {
      id,
      org_id: input.orgId,
      url: input.url,
      events: input.events,
      description: input.description,
      secret_ciphertext: input.secretCiphertext,
      created_at: input.now.toISOString(),
    };
  }

  async get(orgId: string | undefined, id: string): Promise<StoredEndpoint | undefined> {
    const {rows} = await this.db.query<EndpointRow>(
      `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE id = $1 AND ($2::text IS NULL OR org_id = $2)`,
      [id, orgId ?? null],
    );
    return rows[0] && toEndpoint(rows[0]);
  }

  /** Newest first. Treat the result as read-only: it may be shared with other callers. */
  list(orgId: string): Promise<readonly StoredEndpoint[]> {
    return this.cached(`endpoints:${orgId}`, async () => {
      const {rows} = await this.db.query<EndpointRow>(
        `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE org_id = $1 ORDER BY created_at DESC, id DESC`,
        [orgId],
      );
      return rows.map(toEndpoint);
    });
  }

  /** One stored signing secret of any org (relays included), still encrypted: enough to test a vault key on. */
  async anySecretCiphertext(): Promise<string | undefined> {
    const {rows} = await this.db.query<{secret_ciphertext: string}>(
      'SELECT secret_ciphertext FROM webhook_endpoints LIMIT 1',
    );
    return rows[0]?.secret_ciphertext;
  }

  /**
   * Deletes the endpoint and its deliveries in one transaction; undefined when there is no such endpoint (of that
   * org). Returns the owners of the leases its deliveries had (deleteDeliveriesOf), whom the deletion must stop.
   */
  async delete(
    id: string,
    orgId: string | undefined,
    realNow: Date,
  ): Promise<{holders: string[]} | undefined> {
    return this.db.transaction(async (tx) => {
      // Locked first: an event recorded meanwhile adds no delivery for it that the deletion would not see.
      const found = await tx.query(
        'SELECT id FROM webhook_endpoints WHERE id = $1 AND ($2::text IS NULL OR org_id = $2) FOR UPDATE',
        [id, orgId ?? null],
      );
      if (found.rows.length === 0) return undefined;
      const holders = await deleteDeliveriesOf(tx, {endpointId: id}, realNow);
      await tx.query('DELETE FROM webhook_endpoints WHERE id = $1', [id]);
      return {holders};
    });
  }
}
