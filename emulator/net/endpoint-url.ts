// Which URLs may receive webhooks: https only, no credentials or fragment, and only public addresses.
// Shared by endpoint creation and the delivery engine (which checks again at connect time against DNS rebinding).
import {lookup as dnsLookup} from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

export const MAX_ENDPOINT_URL_LENGTH = 2048;

export type UrlCheck = {ok: true; url: URL} | {ok: false; reason: string};

export interface EndpointUrlPolicy {
  /** Also allow http:// and loopback/private hosts (local development only). */
  allowLocal?: boolean;
}

/** True only for globally routable unicast addresses; every special-purpose range is refused. */
export function isPublicAddress(ip: string): boolean {
  const text = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  if (!ipaddr.isValid(text)) return false;
  let addr = ipaddr.parse(text);
  // ::ffff:127.0.0.1 reaches 127.0.0.1; judge the IPv4 address it carries.
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) {
    addr = (addr as ipaddr.IPv6).toIPv4Address();
  }
  return addr.range() === 'unicast';
}

function isLocalhostName(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost');
}

/** Checks the text of a URL without touching the network. Host names still need resolveAndCheck. */
export function checkEndpointUrl(input: string, policy: EndpointUrlPolicy = {}): UrlCheck {
  if (typeof input !== 'string' || input.length === 0) return {ok: false, reason: 'url is required'};
  if (input.length > MAX_ENDPOINT_URL_LENGTH) {
    return {ok: false, reason: `url is longer than ${MAX_ENDPOINT_URL_LENGTH} characters`};
  }
  // WHATWG parsing silently drops tabs and newlines; refuse them so the stored URL is what was typed.
  if (/[\u0000-\u0020\u007f]/.test(input))
    return {ok: false, reason: 'url contains whitespace or control characters'};
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return {ok: false, reason: 'url is not a valid absolute URL'};
  }
  const schemes = policy.allowLocal ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) {
    return {
      ok: false,
      reason: policy.allowLocal ? 'url must use https:// or http://' : 'url must use https://',
    };
  }
  if (url.username !== '' || url.password !== '')
    return {ok: false, reason: 'url must not contain a user name or password'};
  if (input.includes('#')) return {ok: false, reason: 'url must not contain a fragment'};
  const host = url.hostname.replace(/\.$/, '').toLowerCase();
  if (host === '') return {ok: false, reason: 'url has no host'};
  if (policy.allowLocal) return {ok: true, url};
  if (isLocalhostName(host)) return {ok: false, reason: 'url must point at a public host, not localhost'};
  // The WHATWG parser has already turned decimal, hex, octal and short IPv4 forms into dotted quads.
  if (isIpLiteral(host) && !isPublicAddress(host)) {
    return {ok: false, reason: 'url must point at a public address, not a private, loopback or reserved one'};
  }
  return {ok: true, url};
}

export function isIpLiteral(host: string): boolean {
  const text = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return ipaddr.isValid(text) && (text.includes(':') || ipaddr.IPv4.isValidFourPartDecimal(text));
}

export type LookupAll = (host: string) => Promise<{address: string; family: number}[]>;

export const systemLookup: LookupAll = (host) => dnsLookup(host, {all: true, verbatim: true});

/**
 * Resolves a host and checks every address it has; one private address is enough to refuse, since a
 * client may connect to any of them. Returns the addresses, or a reason.
 */
export async function resolveAndCheck(
  host: string,
  lookup: LookupAll = systemLookup,
): Promise<{ok: true; addresses: string[]} | {ok: false; reason: string}> {
  const name = host.replace(/\.$/, '').toLowerCase();
  if (isLocalhostName(name)) return {ok: false, reason: 'url must point at a public host, not localhost'};
  if (isIpLiteral(name)) {
    const ip = name.replace(/^\[|\]$/g, '');
    return isPublicAddress(ip)
      ? {ok: true, addresses: [ip]}
      : {ok: false, reason: 'url must point at a public address, not a private, loopback or reserved one'};
  }
  let addresses: string[];
  try {
    addresses = (await lookup(name)).map((a) => a.address);
  } catch {
    return {ok: false, reason: `the host ${name} could not be resolved`};
  }
  if (addresses.length === 0) return {ok: false, reason: `the host ${name} could not be resolved`};
  if (!addresses.every(isPublicAddress)) {
    return {ok: false, reason: `the host ${name} resolves to a private, loopback or reserved address`};
  }
  return {ok: true, addresses};
}
