// API key secrets are stored and looked up only as lowercase hex SHA-256.
import {createHash, timingSafeEqual} from 'node:crypto';

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Constant-time equality of two strings; hashing first makes the lengths equal, so length leaks nothing either. */
export function safeEqual(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}
