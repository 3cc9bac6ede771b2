// What the per-table repositories share: an optional read cache, the error for a limit reached in a
// transaction, and timestamp conversions.

/** Reads through the emulator's read cache (see read-cache.ts), or straight from the database. */
export type CachedRead = <T>(key: string, load: () => Promise<T>) => Promise<T>;

/** Without a cache every read goes to the database. */
export const uncached: CachedRead = (_key, load) => load();

/** A limit checked and enforced inside the writing transaction, so concurrent writers cannot pass it together. */
export class LimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LimitError';
  }
}

/** The org a write names is gone (deleted meanwhile): no limit is the matter, the org is. */
export class OrgGoneError extends Error {
  constructor(readonly orgId: string) {
    super(`no org ${orgId}`);
    this.name = 'OrgGoneError';
  }
}

export const iso = (v: unknown): string | null =>
  v == null ? null : new Date(v as string | Date).toISOString();
export const isoRequired = (v: unknown): string => new Date(v as string | Date).toISOString();
export const toDate = (v: Date | string | null): Date | null => (v == null ? null : new Date(v));
