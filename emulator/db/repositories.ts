// Plain-SQL repositories over the Database interface; the same code runs on PGlite and PostgreSQL.
import {newApiKeySecret, newId} from '../../src/lib/ids.js';
import type {ApiKey, Delivery, Org, WebhookEndpoint} from '../../src/schemas/index.js';
import type {Database, Queryable} from './database.js';
import type {ReadCache} from './read-cache.js';

/** Without a cache every read goes to the database. */
const uncached = <T>(_key: string, load: () => Promise<T>) => load();
type CachedRead = <T>(key: string, load: () => Promise<T>) => Promise<T>;
import {hashSecret} from '../auth/hash.js';

export const MAX_ACTIVE_KEYS_PER_ORG = 25;
export const MAX_ENDPOINTS_PER_ORG = 10;
export const DELIVERY_RETENTION_MS = 30 * 86_400_000;
export const DELIVERIES_LISTED = 100;

const iso = (v: unknown): string | null => (v == null ? null : new Date(v as string | Date).toISOString());
const isoRequired = (v: unknown): string => new Date(v as string | Date).toISOString();

/** A key as the auth layer needs it: enough to decide active/revoked/expired without another query. */
export interface StoredKey {
  id: string;
  orgId: string;
  name: string;
  prefix: string;
  secretHash: string;
  createdBy: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

interface KeyRow {
  id: string;
  org_id: string;
  name: string;
  prefix: string;
  secret_hash: string;
  created_by: string | null;
  created_at: Date | string;
  last_used_at: Date | string | null;
  expires_at: Date | string | null;
  revoked_at: Date | string | null;
}

const toDate = (v: Date | string | null): Date | null => (v == null ? null : new Date(v));

function toStoredKey(r: KeyRow): StoredKey {
  return {
    id: r.id,
    orgId: r.org_id,
    name: r.name,
    prefix: r.prefix,
    secretHash: r.secret_hash,
    createdBy: r.created_by,
    createdAt: new Date(r.created_at),
    lastUsedAt: toDate(r.last_used_at),
    expiresAt: toDate(r.expires_at),
    revokedAt: toDate(r.revoked_at),
  };
}

export function keyStatus(key: StoredKey, now: Date): ApiKey['status'] {
  if (key.revokedAt) return 'revoked';
  if (key.expiresAt && key.expiresAt.getTime() <= now.getTime()) return 'expired';
  return 'active';
}

/** The wire record: never the secret, never the hash. */
export function keyRecord(key: StoredKey, now: Date): ApiKey {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    created_by: key.createdBy,
    created_at: key.createdAt.toISOString(),
    last_used_at: key.lastUsedAt ? key.lastUsedAt.toISOString() : null,
    expires_at: key.expiresAt ? key.expiresAt.toISOString() : null,
    status: keyStatus(key, now),
  };
}

export type KeyExpiry = '30' | '90' | '365' | 'never';

export class LimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LimitError';
  }
}

export class OrgRepository {
  constructor(
    private readonly db: Queryable,
    private readonly cached: CachedRead = uncached,
  ) {}

  async create(name: string, now: Date): Promise<Org> {
    const id = newId('org');
    await this.db.query('INSERT INTO orgs (id, name, created_at) VALUES ($1, $2, $3)', [id, name, now]);
    return {id, name, created_at: now.toISOString()};
  }

  get(id: string): Promise<Org | undefined> {
    return this.cached(`org:${id}`, () => this.load(id));
  }

  private async load(id: string): Promise<Org | undefined> {
    const {rows} = await this.db.query<{id: string; name: string; created_at: Date}>(
      'SELECT id, name, created_at FROM orgs WHERE id = $1',
      [id],
    );
    const r = rows[0];
    return r && {id: r.id, name: r.name, created_at: isoRequired(r.created_at)};
  }

  async rename(id: string, name: string): Promise<void> {
    await this.db.query('UPDATE orgs SET name = $2 WHERE id = $1', [id, name]);
  }
}

export class MetaRepository {
  constructor(private readonly db: Queryable) {}

  async get(key: string): Promise<string | undefined> {
    const {rows} = await this.db.query<{value: string}>('SELECT value FROM emulator_meta WHERE key = $1', [
      key,
    ]);
    return rows[0]?.value;
  }

  /** Sets key only when it has no value yet; returns the value that holds afterwards (first writer wins). */
  async setIfAbsent(key: string, value: string): Promise<string> {
    await this.db.query(
      'INSERT INTO emulator_meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING',
      [key, value],
    );
    return (await this.get(key)) as string;
  }
}

const KEY_COLUMNS =
  'id, org_id, name, prefix, secret_hash, created_by, created_at, last_used_at, expires_at, revoked_at';

export class ApiKeyRepository {
  constructor(
    private readonly db: Database,
    private readonly cached: CachedRead = uncached,
  ) {}

  /**
   * Mints a key. The org row is locked for the count and the insert, so concurrent creations cannot
   * together pass the limit of active keys.
   */
  async create(input: {
    orgId: string;
    name: string;
    createdBy: string | null;
    expires: KeyExpiry;
    now: Date;
  }): Promise<{key: StoredKey; secret: string}> {
    const secret = newApiKeySecret();
    const expiresAt =
      input.expires === 'never' ? null : new Date(input.now.getTime() + Number(input.expires) * 86_400_000);
    const key: StoredKey = {
      id: newId('key'),
      orgId: input.orgId,
      name: input.name,
      prefix: secret.slice(0, 8),
      secretHash: hashSecret(secret),
      createdBy: input.createdBy,
      createdAt: input.now,
      lastUsedAt: null,
      expiresAt,
      revokedAt: null,
    };
    await this.db.transaction(async (tx) => {
      const org = await tx.query('SELECT id FROM orgs WHERE id = $1 FOR UPDATE', [input.orgId]);
      if (org.rows.length === 0) throw new LimitError(`no org ${input.orgId}`);
      const {rows} = await tx.query<{n: number | string}>(
        'SELECT count(*) AS n FROM api_keys WHERE org_id = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $2)',
        [input.orgId, input.now],
      );
      if (Number(rows[0]?.n ?? 0) >= MAX_ACTIVE_KEYS_PER_ORG) {
        throw new LimitError(
          `the org already has ${MAX_ACTIVE_KEYS_PER_ORG} active API keys; revoke one before creating another`,
        );
      }
      await tx.query(
        `INSERT INTO api_keys (${KEY_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, NULL, $8, NULL)`,
        [
          key.id,
          key.orgId,
          key.name,
          key.prefix,
          key.secretHash,
          key.createdBy,
          key.createdAt,
          key.expiresAt,
        ],
      );
    });
    return {key, secret};
  }

  async findByHash(secretHash: string): Promise<StoredKey | undefined> {
    const {rows} = await this.db.query<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE secret_hash = $1`, [
      secretHash,
    ]);
    return rows[0] && toStoredKey(rows[0]);
  }

  async get(orgId: string | undefined, id: string): Promise<StoredKey | undefined> {
    const {rows} = await this.db.query<KeyRow>(
      `SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = $1 AND ($2::text IS NULL OR org_id = $2)`,
      [id, orgId ?? null],
    );
    return rows[0] && toStoredKey(rows[0]);
  }

  /** Newest first. Treat the result as read-only: it may be shared with other callers. */
  list(orgId: string): Promise<readonly StoredKey[]> {
    return this.cached(`keys:${orgId}`, async () => {
      const {rows} = await this.db.query<KeyRow>(
        `SELECT ${KEY_COLUMNS} FROM api_keys WHERE org_id = $1 ORDER BY created_at DESC, id DESC`,
        [orgId],
      );
      return rows.map(toStoredKey);
    });
  }

  /** Revokes once; revoking again keeps the first revocation time. Returns the key, or undefined when unknown. */
  async revoke(id: string, now: Date, orgId?: string): Promise<StoredKey | undefined> {
    await this.db.query(
      'UPDATE api_keys SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL AND ($3::text IS NULL OR org_id = $3)',
      [id, now, orgId ?? null],
    );
    return this.get(orgId, id);
  }

  /** Moves last_used_at forward only, so late or batched writes never move it back. */
  async touch(id: string, at: Date): Promise<void> {
    await this.db.query(
      'UPDATE api_keys SET last_used_at = $2 WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $2)',
      [id, at],
    );
  }
}

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
    const id = newId('we');
    await this.db.transaction(async (tx) => {
      const org = await tx.query('SELECT id FROM orgs WHERE id = $1 FOR UPDATE', [input.orgId]);
      if (org.rows.length === 0) throw new LimitError(`no org ${input.orgId}`);
      const {rows} = await tx.query<{n: number | string}>(
        // Relay endpoints of `svc listen` are the emulator's own and do not take one of the org's places.
        `SELECT count(*) AS n FROM webhook_endpoints w
          WHERE w.org_id = $1 AND NOT EXISTS (SELECT 1 FROM relay_endpoints r WHERE r.endpoint_id = w.id)`,
        [input.orgId],
      );
      if (Number(rows[0]?.n ?? 0) >= MAX_ENDPOINTS_PER_ORG) {
        throw new LimitError(
          `the org already has ${MAX_ENDPOINTS_PER_ORG} webhook endpoints (relay endpoints of \`svc listen\` not counted); delete one before adding another`,
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

  async delete(id: string, orgId?: string): Promise<boolean> {
    const r = await this.db.query(
      'DELETE FROM webhook_endpoints WHERE id = $1 AND ($2::text IS NULL OR org_id = $2)',
      [id, orgId ?? null],
    );
    return r.rowCount > 0;
  }
}

interface DeliveryRow {
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

export class DeliveryReadRepository {
  constructor(private readonly db: Queryable) {}

  /** The most recent deliveries to one endpoint, newest first, within the retention window by the given clock time. */
  async listForEndpoint(endpointId: string, now: Date): Promise<Delivery[]> {
    const since = new Date(now.getTime() - DELIVERY_RETENTION_MS);
    const {rows} = await this.db.query<DeliveryRow>(
      `SELECT id, event_id, event_type, status, attempts, created_at, last_attempt_at, next_attempt_at, last_status_code
         FROM deliveries
        WHERE endpoint_id = $1 AND created_at > $2
        ORDER BY created_at DESC, id DESC
        LIMIT ${DELIVERIES_LISTED}`,
      [endpointId, since],
    );
    return rows.map((r) => ({
      id: r.id,
      event_id: r.event_id,
      event_type: r.event_type,
      status: r.status as Delivery['status'],
      attempts: Number(r.attempts),
      created_at: isoRequired(r.created_at),
      last_attempt_at: iso(r.last_attempt_at),
      next_attempt_at: iso(r.next_attempt_at),
      last_status_code: r.last_status_code == null ? null : Number(r.last_status_code),
    }));
  }
}

export interface Repositories {
  orgs: OrgRepository;
  meta: MetaRepository;
  keys: ApiKeyRepository;
  endpoints: WebhookEndpointRepository;
  deliveries: DeliveryReadRepository;
}

/** cache: hot reads come from memory (see read-cache.ts); the database must then be the write-tracked one. */
export function createRepositories(db: Database, cache?: ReadCache): Repositories {
  const cached: CachedRead = cache ? (key, load) => cache.get(key, load) : uncached;
  return {
    orgs: new OrgRepository(db, cached),
    meta: new MetaRepository(db),
    keys: new ApiKeyRepository(db, cached),
    endpoints: new WebhookEndpointRepository(db, cached),
    deliveries: new DeliveryReadRepository(db),
  };
}
