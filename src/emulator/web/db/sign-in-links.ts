// One-time sign-in links: only the SHA-256 of each token is kept; a link is spent by the first use.
import type {Queryable} from '../../db/database.js';

export type SpendResult = {ok: true; email: string} | {ok: false; reason: 'unknown' | 'used' | 'expired'};

export class SignInLinkRepository {
  constructor(private readonly db: Queryable) {}

  async create(input: {tokenHash: string; email: string; now: Date; expiresAt: Date}): Promise<void> {
    await this.db.query(
      'INSERT INTO sign_in_links (token_hash, email, created_at, expires_at) VALUES ($1, $2, $3, $4)',
      [input.tokenHash, input.email, input.now, input.expiresAt],
    );
  }

  /** What using the link now would do, without using it. */
  async peek(tokenHash: string, now: Date): Promise<SpendResult> {
    const {rows} = await this.db.query<{email: string; expires_at: Date | string; used_at: unknown}>(
      'SELECT email, expires_at, used_at FROM sign_in_links WHERE token_hash = $1',
      [tokenHash],
    );
    const row = rows[0];
    if (!row) return {ok: false, reason: 'unknown'};
    if (row.used_at != null) return {ok: false, reason: 'used'};
    if (new Date(row.expires_at).getTime() <= now.getTime()) return {ok: false, reason: 'expired'};
    return {ok: true, email: row.email};
  }

  /** Uses the link: one statement, so of two simultaneous uses exactly one succeeds. */
  async spend(tokenHash: string, now: Date): Promise<SpendResult> {
    const {rows} = await this.db.query<{email: string}>(
      `UPDATE sign_in_links SET used_at = $2
        WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2 RETURNING email`,
      [tokenHash, now],
    );
    if (rows[0]) return {ok: true, email: rows[0].email};
    const seen = await this.peek(tokenHash, now);
    return seen.ok ? {ok: false, reason: 'used'} : seen;
  }

  /** Status of many links at once, for the mailbox: hash -> used / expired / waiting. */
  async states(tokenHashes: string[], now: Date): Promise<Map<string, 'used' | 'expired' | 'unused'>> {
    const out = new Map<string, 'used' | 'expired' | 'unused'>();
    if (tokenHashes.length === 0) return out;
    const {rows} = await this.db.query<{token_hash: string; expires_at: Date | string; used_at: unknown}>(
      'SELECT token_hash, expires_at, used_at FROM sign_in_links WHERE token_hash = ANY($1::text[])',
      [tokenHashes],
    );
    for (const r of rows) {
      out.set(
        r.token_hash,
        r.used_at != null ? 'used' : new Date(r.expires_at).getTime() <= now.getTime() ? 'expired' : 'unused',
      );
    }
    return out;
  }

  /** Links a day past their expiry are of no use to anyone. */
  async purgeExpired(before: Date): Promise<void> {
    await this.db.query('DELETE FROM sign_in_links WHERE expires_at < $1', [before]);
  }
}
