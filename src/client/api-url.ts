// Which API addresses a key may be sent to: https everywhere, plain http only to this machine.
import {isLoopbackHost, MAX_API_URL_LENGTH} from '../definitions.js';
import {ApiError} from './errors.js';
import {redactKeys} from './redact.js';

/** True for the hosts where plain http never leaves the machine (the rule is the definitions'). */
export {isLoopbackHost};

/** The address was refused before any request: nothing was sent, so there is no status. */
export class ApiUrlError extends ApiError {
  constructor(reason: string) {
    super(`invalid API address: ${reason}`, {code: 'invalid_api_url'});
    this.name = 'ApiUrlError';
  }
}

/**
 * Parses and normalises an API address, or throws ApiUrlError saying what is wrong.
 * The normal form (`https://host[:port][/path]`, no trailing slash) is also the key under which a
 * credential is stored, so two spellings of one address find the same key and nothing else does.
 */
export function normalizeApiUrl(input: string): string {
  const raw = input.trim();
  if (raw === '') throw new ApiUrlError('the address is empty');
  if (raw.length > MAX_API_URL_LENGTH)
    throw new ApiUrlError(`the address is longer than ${MAX_API_URL_LENGTH} characters`);
  // Control characters and spaces are silently stripped or encoded by URL parsers, which is how
  // addresses that look harmless end up somewhere else: refuse them outright.
  if (/[\u0000-\u0020\u007f\\]/.test(raw))
    throw new ApiUrlError('the address contains spaces, control characters or backslashes');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ApiUrlError(`${JSON.stringify(shorten(raw))} is not an absolute URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ApiUrlError(
      `the scheme ${JSON.stringify(url.protocol.slice(0, -1))} is not allowed; use https://`,
    );
  }
  // `http:host` parses as a URL too; only the spelled-out form is accepted so the host is unambiguous.
  if (!/^https?:\/\//i.test(raw)) throw new ApiUrlError('the address must start with https://');
  // Userinfo would be sent along in clear and makes `https://api.svc.dev@evil.example` look trustworthy.
  const authority = raw.slice(raw.indexOf('//') + 2).split('/')[0] ?? '';
  if (url.username !== '' || url.password !== '' || authority.includes('@')) {
    throw new ApiUrlError('a user name or password in the address is not allowed');
  }
  if (raw.includes('?') || raw.includes('#'))
    throw new ApiUrlError('a query string or fragment is not allowed');
  if (url.hostname === '') throw new ApiUrlError('the address has no host');
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new ApiUrlError(
      `plain http:// is refused for ${redactKeys(url.hostname)} because the key would travel unencrypted; use https:// (http:// is allowed only for localhost, 127.0.0.1 and [::1])`,
    );
  }
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.protocol}//${url.host}${path}`;
}

function shorten(text: string): string {
  const safe = redactKeys(text);
  return safe.length > 80 ? `${safe.slice(0, 77)}...` : safe;
}
