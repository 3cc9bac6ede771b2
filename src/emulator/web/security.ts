// Tokens, cookies and headers of the account page: random ids, their hashes, CSRF tokens bound to the cookie.
import {createHmac, randomBytes} from 'node:crypto';
import type {Context} from 'hono';
import {getCookie, setCookie, deleteCookie} from 'hono/cookie';
import {hashSecret, safeEqual} from '../hash.js';
import type {HostPolicy} from '../net/host-policy.js';
import {servedPort} from '../net/request-header.js';

// The cookies are host-only (no Domain), set only at the page's own name (svc-<port>.localhost) when it has one,
// so no other server on this machine receives them. They are named after the port too: reached by a name
// several emulators share (a container's, given with --allowed-host), two would otherwise overwrite each other's.
/** Holds the session id of a signed-in person. */
export const sessionCookie = (c: Context) => `svc_session_${servedPort(c)}`;
/** Holds a random id before sign-in, so the sign-in forms carry a CSRF token too. */
export const preSessionCookie = (c: Context) => `svc_presession_${servedPort(c)}`;
const COOKIE_PATH = '/account';
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** 32 random bytes, base64url: sign-in tokens and session ids. */
export const newToken = () => randomBytes(32).toString('base64url');
export const hashToken = (token: string) => hashSecret(token);
export const isTokenShaped = (value: unknown): value is string =>
  typeof value === 'string' && TOKEN_SHAPE.test(value);

/** The CSRF token of a form: an HMAC keyed by the cookie value, so only a page that could read the cookie's owner can send it. */
export const csrfTokenFor = (cookieValue: string) =>
  createHmac('sha256', cookieValue).update('svc account form').digest('base64url');

export function csrfTokenMatches(cookieValue: string | undefined, sent: unknown): boolean {
  if (!cookieValue || typeof sent !== 'string' || sent.length > 100) return false;
  return safeEqual(csrfTokenFor(cookieValue), sent);
}

export function readCookie(c: Context, name: string): string | undefined {
  const value = getCookie(c, name);
  return isTokenShaped(value) ? value : undefined;
}

// No Max-Age: the browser forgets the cookie when it closes; the server ends the session by its own clock.
export function setTokenCookie(c: Context, name: string, value: string): void {
  setCookie(c, name, value, {path: COOKIE_PATH, httpOnly: true, sameSite: 'Lax', secure: isHttps(c)});
}

export function clearCookie(c: Context, name: string): void {
  deleteCookie(c, name, {path: COOKIE_PATH, httpOnly: true, sameSite: 'Lax', secure: isHttps(c)});
}

const isHttps = (c: Context) => new URL(c.req.url).protocol === 'https:';

/** Headers on every account page answer: nothing inline runs, nothing loads from elsewhere, nothing is cached. */
export const PAGE_HEADERS: Record<string, string> = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  // Sign-in links carry their token in the address; no other site may see it. (Not no-referrer: with it,
  // browsers send `Origin: null` on the page's own form posts.)
  'Referrer-Policy': 'same-origin',
  'Cache-Control': 'no-store',
  'Cross-Origin-Opener-Policy': 'same-origin',
};

/**
 * A post that says it comes from another site is refused even before its token is read: by its Origin, or when
 * that is withheld (`null`), by the browser's Sec-Fetch-Site. The Origin must name one of the names the emulator
 * answers to (not merely the request's own Host, which a rebound name would match) and the port the form was
 * served from.
 */
export function sameOrigin(c: Context, hosts: HostPolicy): boolean {
  const origin = c.req.header('origin');
  const site = c.req.header('sec-fetch-site');
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return false;
  if (origin === undefined || origin === 'null') return true;
  try {
    const from = new URL(origin);
    return hosts.allows(from.host, servedPort(c)) && from.host === new URL(c.req.url).host;
  } catch {
    return false;
  }
}
