// What /v1 and the control surface share about authentication: reading `Authorization: Bearer …` and the
// answer for an address that failed too often.
import {HttpError} from '../http-error.js';

const BEARER = /^Bearer +(\S+) *$/i;

/** The token of `Authorization: Bearer <token>`, or undefined; a header longer than maxLength is refused unread. */
export function bearerToken(header: string | undefined, maxLength: number): string | undefined {
  if (!header || header.length > maxLength) return undefined;
  return BEARER.exec(header)?.[1];
}

/** The command that ends a lockout at once (the admin token always passes, so it always works). */
export const LIMITER_RESET_COMMAND = 'svc emulator limiter reset';

/** 429 with the wait in seconds, in the header and in words, and the way out for the emulator's operator. */
export function rateLimited(waitSeconds: number): HttpError {
  return new HttpError(
    429,
    'rate_limited',
    `too many failed authentication attempts from this address; try again in ${waitSeconds} s, or end the lockout now with \`${LIMITER_RESET_COMMAND}\``,
    {'Retry-After': String(waitSeconds)},
  );
}
