// API key secrets are stored and looked up only as lowercase hex SHA-256.
import {createHash, hash, timingSafeEqual} from 'node:crypto';

export function hashSecret(secret: string): string {
  // The one-shot form: every authenticated request hashes its key, and a Hash object costs more than the hash.
  return hash('sha256', secret, 'hex');
}

/** Constant-time equality of two SHA-256 hex digests (always the same length, so nothing leaks through it). */
export function digestsEqual(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a, 'latin1'), Buffer.from(b, 'latin1'));
}

/** Constant-time equality of two strings; hashing first makes the lengths equal, so length leaks nothing either. */
export function safeEqual(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}
