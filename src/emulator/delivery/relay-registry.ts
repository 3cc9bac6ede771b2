// Relay endpoints for `svc listen`: one per org and name, reused across runs so its signing secret stays stable.
import {MAX_RELAYS_PER_ORG} from '../../definitions.js';
import {newSigningSecret} from '../ids.js';
import {newId} from '../../ids.js';
import type {Database} from '../db/database.js';
import type {Vault} from '../vault.js';

export interface RelayEndpoint {
  endpoint_id: string;
  name: string;
  events: string[];
  secret: string;
  created: boolean;
}

export const RELAY_URL_SCHEME = 'relay://';

/** A relay endpoint of `svc listen`: listed with the org's endpoints, but not one of its 10 places. */
export function isRelayUrl(url: string): boolean {
  return url.startsWith(RELAY_URL_SCHEME);
}

/** The org already has as many relay endpoints as it may; an existing name can still be reused. */
export class RelayLimitError extends Error {
  constructor() {
    super(
      `the org already has ${MAX_RELAYS_PER_ORG} relay endpoints; register under one of their names again ` +
        '(relay endpoints do not take one of the webhook endpoint places, but have a limit of their own)',
    );
    this.name = 'RelayLimitError';
  }
}

/** Finds the relay endpoint called `name`, or creates it; `events` (when given) replaces its subscription. */
export async function registerRelay(
  db: Database,
  vault: Vault,
  input: {orgId: string; name: string; events: string[]; now: Date},
): Promise<RelayEndpoint> {
  return db.transaction(async (tx) => {
    const existing = await tx.query<{endpoint_id: string; events: string[]; secret_ciphertext: string}>(
      `SELECT r.endpoint_id, w.events, w.secret_ciphertext
         FROM relay_endpoints r JOIN webhook_endpoints w ON w.id = r.endpoint_id
        WHERE r.org_id = $1 AND r.name = $2 FOR UPDATE OF r`,
      [input.orgId, input.name],
    );
    const row = existing.rows[0];
    if (row) {
      if (!sameSet(row.events, input.events)) {
        await tx.query('UPDATE webhook_endpoints SET events = $2 WHERE id = $1', [
          row.endpoint_id,
          input.events,
        ]);
      }
      return {
        endpoint_id: row.endpoint_id,
        name: input.name,
        events: input.events,
        secret: vault.decrypt(row.secret_ciphertext),
        created: false,
      };
    }
    const count = await tx.query<{n: number | string}>(
      'SELECT count(*) AS n FROM relay_endpoints WHERE org_id = $1',
      [input.orgId],
    );
    if (Number(count.rows[0]?.n ?? 0) >= MAX_RELAYS_PER_ORG) throw new RelayLimitError();
    const id = newId('webhookEndpoint');
    const secret = newSigningSecret();
    await tx.query(
      `INSERT INTO webhook_endpoints (id, org_id, url, events, description, secret_ciphertext, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [
        id,
        input.orgId,
        `${RELAY_URL_SCHEME}${input.name}`,
        input.events,
        'svc listen relay',
        vault.encrypt(secret),
        input.now,
      ],
    );
    await tx.query(
      'INSERT INTO relay_endpoints (org_id, name, endpoint_id, created_at) VALUES ($1, $2, $3, $4)',
      [input.orgId, input.name, id, input.now],
    );
    return {endpoint_id: id, name: input.name, events: input.events, secret, created: true};
  });
}

export async function isRelayEndpoint(db: Database, endpointId: string): Promise<boolean> {
  const r = await db.query('SELECT 1 FROM relay_endpoints WHERE endpoint_id = $1', [endpointId]);
  return r.rows.length > 0;
}

function sameSet(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}
