// Bearer authentication for /v1: a hot request is answered from memory, a revoked key fails on the very next request.
import {
  API_KEY_PREFIX_LENGTH,
  API_KEY_SECRET_BODY_LENGTH,
  API_KEY_SECRET_PATTERN,
  API_KEY_SECRET_PREFIX,
} from '../../definitions.js';
import type {Refusal} from '../request-log.js';
import type {Clock} from '../clock.js';
import {type ApiKeyRepository, keyStatus, type StoredKey} from '../db/api-keys.js';
import {bearerToken} from './bearer.js';
import {digestsEqual, hashSecret} from '../hash.js';

// last_used_at is written at most this often per key: exact enough for a key page, cheap on the hot path.
export const LAST_USED_WRITE_INTERVAL_MS = 60_000;

/** Extracts the secret of `Authorization: Bearer svc_…`, or undefined for anything else. */
export function parseBearer(header: string | undefined): string | undefined {
  // Real keys are 44 characters; refusing long headers early keeps hostile input cheap.
  const token = bearerToken(header, 200);
  return token && API_KEY_SECRET_PATTERN.test(token) ? token : undefined;
}

export class Authenticator {
  // hash -> key; only keys that exist are cached, so failed guesses cannot grow it.
  private readonly byHash = new Map<string, {key: StoredKey}>();
  /** Bumped by forgetAll(): a row read before it may be stale, so it is used once but not kept. */
  private epoch = 0;
  private readonly pendingWrites = new Set<Promise<void>>();
  private readonly lastWritten = new Map<string, number>();
  // key id -> last use seen in memory, which may be newer than the row until the next write.
  private readonly lastSeen = new Map<string, Date>();

  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly clock: Clock,
    private readonly log: (line: string) => void = () => undefined,
    /**
     * trusted: false where another process's revocation may not have reached this one yet (on a shared
     * PostgreSQL, until this request has heard every earlier write: db/read-barrier.ts); then the request reads
     * its key from the database.
     */
    private readonly options: {
      trusted?: () => boolean;
      /** An org's time where it has a clock of its own (keys expire on their org's clock). */
      orgNow?: (orgId: string) => Date;
    } = {},
  ) {}

  /** The active key for an Authorization header, or undefined when it is missing, malformed, wrong, revoked or expired. */
  async authenticate(header: string | undefined): Promise<StoredKey | undefined> {
    const secret = parseBearer(header);
    if (!secret) return undefined;
    const hash = hashSecret(secret);
    const trusted = this.options.trusted?.() ?? true;
    const cached = trusted ? this.byHash.get(hash) : undefined;
    let key = cached?.key;
    if (!cached) {
      const epoch = this.epoch;
      const previous = this.byHash.get(hash);
      key = await this.keys.findByHash(hash);
      // Checked once, when the row is read: an entry is cached only under the very hash it holds.
      if (!key || !digestsEqual(key.secretHash, hash)) {
        this.byHash.delete(hash);
        return undefined;
      }
      if (previous?.key.lastUsedAt && (!key.lastUsedAt || previous.key.lastUsedAt > key.lastUsedAt)) {
        key.lastUsedAt = previous.key.lastUsedAt;
      }
      if (trusted && epoch === this.epoch && (this.options.trusted?.() ?? true)) this.byHash.set(hash, {key});
      else this.byHash.delete(hash);
    }
    if (!key) return undefined;
    const now = this.#now(key.orgId);
    if (keyStatus(key, now) !== 'active') return undefined;
    this.noteUse(key, now);
    return key;
  }

  /**
   * Why `authenticate` refused this header, for the request log: asked only after a refusal, so the hot path
   * pays nothing. Never says anything of the secret beyond the prefix a key list shows.
   */
  async explainRefusal(header: string | undefined): Promise<Refusal> {
    if (header === undefined || header.trim() === '')
      return {reason: 'missing', detail: 'no Authorization header'};
    const secret = parseBearer(header);
    if (!secret)
      return {
        reason: 'malformed',
        detail: `not \`Authorization: Bearer ${API_KEY_SECRET_PREFIX}\` and ${API_KEY_SECRET_BODY_LENGTH} base62 characters`,
      };
    const key = await this.keys.findByHash(hashSecret(secret));
    const prefix = secret.slice(0, API_KEY_PREFIX_LENGTH);
    if (!key) return {reason: 'unknown_key', key_prefix: prefix};
    const ids = {key_id: key.id, key_prefix: key.prefix};
    if (key.revokedAt)
      return {reason: 'revoked', detail: `revoked at ${key.revokedAt.toISOString()}`, ...ids};
    if (key.expiresAt && keyStatus(key, this.#now(key.orgId)) === 'expired') {
      return {reason: 'expired', detail: `expired at ${key.expiresAt.toISOString()}`, ...ids};
    }
    // Active by now (created or un-cached in between): the request was refused by what the cache knew then.
    return {reason: 'unknown_key', ...ids};
  }

  #now(orgId: string): Date {
    return this.options.orgNow?.(orgId) ?? this.clock.now();
  }

  /** Called by whoever revokes a key, so the cache never answers for it again. */
  forget(keyId: string): void {
    this.epoch++;
    for (const [hash, entry] of this.byHash) {
      if (entry.key.id === keyId) this.byHash.delete(hash);
    }
    this.lastWritten.delete(keyId);
    this.lastSeen.delete(keyId);
  }

  /** Another process changed keys (or orgs): every cached key is read again on its next use. */
  forgetAll(): void {
    this.epoch++;
    this.byHash.clear();
  }

  /** The most recent use of a key known to this process, newer than the stored one when a write is still due. */
  lastUsedAt(key: StoredKey): Date | null {
    const seen = this.lastSeen.get(key.id);
    if (seen && (!key.lastUsedAt || seen > key.lastUsedAt)) return seen;
    return key.lastUsedAt;
  }

  /** Resolves when every last-used write started so far has finished (for a clean shutdown). */
  async flush(): Promise<void> {
    await Promise.all([...this.pendingWrites]);
  }

  private noteUse(key: StoredKey, now: Date): void {
    key.lastUsedAt = now;
    this.lastSeen.set(key.id, now);
    const last = this.lastWritten.get(key.id);
    const nowMs = now.getTime();
    if (last !== undefined && nowMs - last < LAST_USED_WRITE_INTERVAL_MS && nowMs >= last) return;
    this.lastWritten.set(key.id, nowMs);
    const write = this.keys
      .touch(key.id, now)
      .catch((err: unknown) => this.log(`could not record key use: ${(err as Error).message}`))
      .finally(() => this.pendingWrites.delete(write));
    this.pendingWrites.add(write);
  }
}
