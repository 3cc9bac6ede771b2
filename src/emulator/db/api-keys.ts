// The api_keys table: keys stored by the SHA-256 of their secret, never the secret itself.
import {
  API_KEY_PREFIX_LENGTH,
  MAX_ACTIVE_KEYS_PER_ORG,
  type ApiKeyStatus,
  type KeyExpiryChoice,
} from '../../definitions.js';
import type {ApiKey} from '../../schemas/index.js';
import {hashSecret} from '../hash.js';
import {newApiKeySecret} from '../ids.js';
import {newId} from '../../ids.js';
import type {Database} from './database.js';
import {LEAVES_CACHE} from './read-cache.js';
import {type CachedRead, LimitError, OrgGoneError, toDate, uncached} from './repository-support.js';

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

export function keyStatus(key: Pick<StoredKey, 'revokedAt' | 'expiresAt'>, now: Date): ApiKeyStatus {
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
    expires: KeyExpiryChoice;
    now: Date;
  }): Promise<{key: StoredKey; secret: string}> {
    const secret = newApiKeySecret();
    const expiresAt =
      input.expires === 'never' ? null : new Date(input.now.getTime() + Number(input.expires) * 86_400_000);
    const key: StoredKey = {
      id: newId('apiKey'),
      orgId: input.orgId,
      name: input.name,
      prefix: secret.slice(0, API_KEY_PREFIX_LENGTH),
      secretHash: hashSecret(secret),
      createdBy: input.createdBy,
      createdAt: input.now,
      lastUsedAt: null,
      expiresAt,
      revokedAt: null,
    };
    await this.db.transaction(async (tx) => {
      const org = await tx.query('SELECT id FROM orgs WHERE id = $1 FOR UPDATE', [input.orgId]);
      if (org.rows.length === 0) throw new OrgGoneError(input.orgId);
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

  /**
   * Moves last_used_at forward only, so late or batched writes never move it back. It leaves the read cache as it
   * is: what this process reads of a key's last use comes from the authenticator's memory.
   */
  async touch(id: string, at: Date): Promise<void> {
    await this.db.query(
      `${LEAVES_CACHE}UPDATE api_keys SET last_used_at = $2 WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $2)`,
      [id, at],
    );
  }
}
