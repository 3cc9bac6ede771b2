// The sandbox_links table: port sessions, desktop links and browser URLs, each stored with the SHA-256 of the token
// in its URL (never the token). Reads join the link's key and sandbox, whose state decides whether it works.
import type {SandboxLinkKind, SandboxLinkStatus, SandboxStatus} from '../../definitions.js';
import type {SandboxLink} from '../../schemas/index.js';
import {keyStatus} from './api-keys.js';
import type {Database, Queryable} from './database.js';
import {toDate} from './repository-support.js';

export interface StoredLink {
  id: string;
  orgId: string;
  sandboxId: string;
  keyId: string;
  kind: SandboxLinkKind;
  port: number | null;
  createdAt: Date;
}

/** A link with what decides whether it works: its key's revocation and expiry, its sandbox's state. */
export interface LinkView extends StoredLink {
  tokenHash: string;
  key: {revokedAt: Date | null; expiresAt: Date | null};
  sandbox: {name: string; status: SandboxStatus; expiresAt: Date | null};
}

/** Why a link does not work, finer than its status: for the message a refused request gets. */
export type LinkRefusal = 'key_revoked' | 'key_expired' | 'sandbox_not_running';

/** The one rule of a link's state: its key first (a revoked key's links never come back), then its sandbox. */
export function linkState(link: LinkView, now: Date): {status: SandboxLinkStatus; refusal?: LinkRefusal} {
  const key = keyStatus(link.key, now);
  if (key === 'revoked') return {status: 'revoked', refusal: 'key_revoked'};
  if (key === 'expired') return {status: 'revoked', refusal: 'key_expired'};
  if (!sandboxRuns(link.sandbox, now)) return {status: 'sandbox_stopped', refusal: 'sandbox_not_running'};
  return {status: 'active'};
}

/**
 * Only a running sandbox's links work. One whose expiry has passed stops at that instant, before the sweep that
 * moves it to `deleting` has run.
 */
export function sandboxRuns(sandbox: {status: SandboxStatus; expiresAt: Date | null}, now: Date): boolean {
  const expired = sandbox.expiresAt !== null && sandbox.expiresAt.getTime() <= now.getTime();
  return sandbox.status === 'running' && !expired;
}

/** The record the control surface lists: never the token, nor its hash. */
export function linkRecord(link: LinkView, now: Date): SandboxLink {
  return {
    id: link.id,
    kind: link.kind,
    sandbox_id: link.sandboxId,
    key_id: link.keyId,
    port: link.port,
    created_at: link.createdAt.toISOString(),
    status: linkState(link, now).status,
  };
}

interface LinkRow {
  id: string;
  org_id: string;
  sandbox_id: string;
  key_id: string;
  kind: string;
  port: number | null;
  token_hash: string;
  created_at: Date | string;
  key_revoked_at: Date | string | null;
  key_expires_at: Date | string | null;
  sandbox_name: string;
  sandbox_status: string;
  sandbox_expires_at: Date | string | null;
}

const VIEW = `SELECT l.id, l.org_id, l.sandbox_id, l.key_id, l.kind, l.port, l.token_hash, l.created_at,
    k.revoked_at AS key_revoked_at, k.expires_at AS key_expires_at,
    s.name AS sandbox_name, s.status AS sandbox_status, s.expires_at AS sandbox_expires_at
  FROM sandbox_links l JOIN api_keys k ON k.id = l.key_id JOIN sandboxes s ON s.id = l.sandbox_id`;

function toView(r: LinkRow): LinkView {
  return {
    id: r.id,
    orgId: r.org_id,
    sandboxId: r.sandbox_id,
    keyId: r.key_id,
    kind: r.kind as SandboxLinkKind,
    port: r.port === null ? null : Number(r.port),
    createdAt: new Date(r.created_at),
    tokenHash: r.token_hash,
    key: {revokedAt: toDate(r.key_revoked_at), expiresAt: toDate(r.key_expires_at)},
    sandbox: {
      name: r.sandbox_name,
      status: r.sandbox_status as SandboxStatus,
      expiresAt: toDate(r.sandbox_expires_at),
    },
  };
}

export class SandboxLinkRepository {
  constructor(private readonly db: Database) {}

  /**
   * Within the caller's transaction: the sandbox and the key a new link would join, locked against a concurrent
   * revocation or sandbox move until the link is written.
   */
  async lockParents(
    q: Queryable,
    ids: {sandboxId: string; keyId: string},
  ): Promise<{
    sandbox?: {orgId: string; status: SandboxStatus; expiresAt: Date | null};
    key?: {orgId: string; revokedAt: Date | null; expiresAt: Date | null};
  }> {
    const sandbox = await q.query<{org_id: string; status: string; expires_at: Date | string | null}>(
      'SELECT org_id, status, expires_at FROM sandboxes WHERE id = $1 FOR SHARE',
      [ids.sandboxId],
    );
    const key = await q.query<{
      org_id: string;
      revoked_at: Date | string | null;
      expires_at: Date | string | null;
    }>('SELECT org_id, revoked_at, expires_at FROM api_keys WHERE id = $1 FOR SHARE', [ids.keyId]);
    const s = sandbox.rows[0];
    const k = key.rows[0];
    return {
      sandbox: s && {orgId: s.org_id, status: s.status as SandboxStatus, expiresAt: toDate(s.expires_at)},
      key: k && {orgId: k.org_id, revokedAt: toDate(k.revoked_at), expiresAt: toDate(k.expires_at)},
    };
  }

  /** Whether a sandbox exists (a list filtered by an unknown one answers 404, not an empty list). */
  async sandboxExists(sandboxId: string): Promise<boolean> {
    const {rows} = await this.db.query('SELECT 1 FROM sandboxes WHERE id = $1', [sandboxId]);
    return rows.length > 0;
  }

  /** Inserts within the caller's transaction, which has checked (and locked) the key and the sandbox. */
  async insert(q: Queryable, link: StoredLink & {tokenHash: string}): Promise<void> {
    await q.query(
      `INSERT INTO sandbox_links (id, org_id, sandbox_id, key_id, kind, port, token_hash, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [link.id, link.orgId, link.sandboxId, link.keyId, link.kind, link.port, link.tokenHash, link.createdAt],
    );
  }

  /** Read on every request to a link, never cached: a revocation by any process is seen by the next request. */
  async findByTokenHash(tokenHash: string): Promise<LinkView | undefined> {
    const {rows} = await this.db.query<LinkRow>(`${VIEW} WHERE l.token_hash = $1`, [tokenHash]);
    return rows[0] && toView(rows[0]);
  }

  /** The links with these ids as they are now, never cached (open traffic through them is re-checked so). */
  async findByIds(ids: readonly string[]): Promise<LinkView[]> {
    if (ids.length === 0) return [];
    const {rows} = await this.db.query<LinkRow>(`${VIEW} WHERE l.id = ANY($1::text[])`, [ids]);
    return rows.map(toView);
  }

  /** Newest first: an org's links, or one sandbox's. */
  async list(filter: {orgId: string} | {sandboxId: string}): Promise<LinkView[]> {
    const [where, value] =
      'orgId' in filter ? ['l.org_id', filter.orgId] : ['l.sandbox_id', filter.sandboxId];
    const {rows} = await this.db.query<LinkRow>(
      `${VIEW} WHERE ${where} = $1 ORDER BY l.created_at DESC, l.id DESC`,
      [value],
    );
    return rows.map(toView);
  }
}
