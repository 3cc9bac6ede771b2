// Which addresses may receive webhooks, in one place: the URL rules checked when an endpoint is registered, the
// DNS check made then, and the connect-time check every delivery makes again (against DNS rebinding).
import type {LookupAddress, LookupOneOptions} from 'node:dns';
import {lookup as dnsLookup} from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import {type LocalUrlKind, MAX_ENDPOINT_URL_LENGTH, SPECIAL_USE_DOMAINS} from '../../definitions.js';

/** Resolves a host name to every address it has (tests pass a fake one; the emulator needs no network). */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolver: Resolver = (hostname) => dnsLookup(hostname, {all: true, verbatim: true});

/** Strips the brackets WHATWG URL keeps around IPv6 literals. */
export function bareHostname(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/** True only for globally routable unicast addresses; every special-purpose range is refused. */
export function isPublicAddress(ip: string): boolean {
  const text = bareHostname(ip);
  if (!ipaddr.isValid(text)) return false;
  // ipaddr.js reads the deprecated IPv4-compatible `::a.b.c.d` as IPv4-mapped; it is never a public destination.
  if (/^::(\d{1,3}\.){3}\d{1,3}$/.test(text)) return false;
  let addr = ipaddr.parse(text);
  if (addr.kind() === 'ipv6') {
    const v6 = addr as ipaddr.IPv6;
    // ::ffff:127.0.0.1 reaches 127.0.0.1; judge the IPv4 address it carries.
    if (v6.isIPv4MappedAddress()) addr = v6.toIPv4Address();
    // The deprecated IPv4-compatible form (::a.b.c.d, ::/96) is never a public destination.
    else if (v6.parts.slice(0, 6).every((part) => part === 0)) return false;
  }
  return addr.range() === 'unicast';
}

export function isIpLiteral(host: string): boolean {
  const text = bareHostname(host);
  return ipaddr.isValid(text) && (text.includes(':') || ipaddr.IPv4.isValidFourPartDecimal(text));
}

function isLocalhostName(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost');
}

/** Where a host refused as local is: this machine, or another host that only a local network reaches. */
function localKindOf(host: string): LocalUrlKind {
  if (isLocalhostName(host)) return 'this_machine';
  const text = bareHostname(host);
  if (!ipaddr.isValid(text)) return 'local_network';
  let addr = ipaddr.parse(text);
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress())
    addr = (addr as ipaddr.IPv6).toIPv4Address();
  const range = addr.range();
  return range === 'loopback' || range === 'unspecified' ? 'this_machine' : 'local_network';
}

/** Where a URL refused for its scheme points: a public host over http, or a host of this machine or network. */
function schemeKindOf(url: URL): LocalUrlKind {
  const host = url.hostname.replace(/\.$/, '').toLowerCase();
  if (isLocalhostName(host) || (isIpLiteral(host) && !isPublicAddress(host))) return localKindOf(host);
  if (!isIpLiteral(host) && !host.includes('.')) return 'local_network';
  return url.protocol === 'http:' ? 'plain_http' : 'local_network';
}

/** The special-use domain a host name falls in, if any. */
function specialUseDomain(host: string): string | undefined {
  return SPECIAL_USE_DOMAINS.find((domain) => host === domain || host.endsWith(`.${domain}`));
}

const NOT_PUBLIC = 'url must point at a public address, not a private, loopback or reserved one';

export interface EndpointUrlPolicy {
  /** Also allow http:// and loopback/private hosts (local development only). */
  allowLocal?: boolean;
}

/**
 * The URL as it will be stored and delivered to: WHATWG-normalised, so what is listed is where deliveries go
 * (`https://1.2.3.4\@127.0.0.1/` is stored as `https://1.2.3.4/@127.0.0.1/`).
 */
export type UrlCheck = {ok: true; url: URL; normalized: string} | UrlRefusal;

/**
 * A refused URL; `local` when the refusal is of an address on this machine or its network (or plain http), which
 * --allow-local-endpoints lifts, saying where it points.
 */
export interface UrlRefusal {
  ok: false;
  reason: string;
  local?: LocalUrlKind;
}

/** Checks the text of a URL without touching the network. Host names still need checkEndpointHost. */
export function checkEndpointUrl(input: string, policy: EndpointUrlPolicy = {}): UrlCheck {
  if (typeof input !== 'string' || input.length === 0) return {ok: false, reason: 'url is required'};
  if (input.length > MAX_ENDPOINT_URL_LENGTH) {
    return {ok: false, reason: `url is longer than ${MAX_ENDPOINT_URL_LENGTH} characters`};
  }
  // WHATWG parsing silently drops tabs and newlines; refuse them so the stored URL is what was typed.
  if (/[\u0000-\u0020\u007f]/.test(input))
    return {ok: false, reason: 'url contains whitespace or control characters'};
  // WHATWG parsing reads `https:///x`, `https:/x` and `https:\\x` as https://x/: a host the person never typed.
  if (/^[a-z][a-z0-9+.-]*:/i.test(input) && !/^[a-z][a-z0-9+.-]*:\/\/[^/\\?#]/i.test(input)) {
    return {
      ok: false,
      reason: 'url has no host: it needs one right after the "//" (like https://hooks.example.com/svc)',
    };
  }
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
      ...(policy.allowLocal
        ? {reason: 'url must use https:// or http://'}
        : {reason: 'url must use https://', local: schemeKindOf(url)}),
    };
  }
  if (url.username !== '' || url.password !== '')
    return {ok: false, reason: 'url must not contain a user name or password'};
  if (input.includes('#')) return {ok: false, reason: 'url must not contain a fragment'};
  if (url.port === '0') return {ok: false, reason: 'url must not use port 0'};
  const host = url.hostname.replace(/\.$/, '').toLowerCase();
  if (host === '') return {ok: false, reason: 'url has no host'};
  const normalized = url.href;
  if (normalized.length > MAX_ENDPOINT_URL_LENGTH) {
    return {ok: false, reason: `url is longer than ${MAX_ENDPOINT_URL_LENGTH} characters once normalised`};
  }
  if (policy.allowLocal) return {ok: true, url, normalized};
  if (isLocalhostName(host))
    return {ok: false, reason: 'url must point at a public host, not localhost', local: 'this_machine'};
  // The WHATWG parser has already turned decimal, hex, octal and short IPv4 forms into dotted quads.
  if (isIpLiteral(host))
    return isPublicAddress(host)
      ? {ok: true, url, normalized}
      : {ok: false, reason: NOT_PUBLIC, local: localKindOf(host)};
  const special = specialUseDomain(host);
  if (special) {
    return {
      ok: false,
      reason: `url host ${host} is in .${special}, a special-use domain that no public host can have`,
    };
  }
  if (!host.includes('.')) {
    return {
      ok: false,
      reason: `url host ${host} is a single label, which names a host on a local network only; use its full name (like ${host}.example.com)`,
    };
  }
  return {ok: true, url, normalized};
}

export type HostCheck = {ok: true; addresses: string[]; warning?: string} | UrlRefusal;

/**
 * The registration-time DNS check: every address a name has must be public, since a client may connect to
 * any of them. A name DNS cannot answer for (offline, no resolver) is accepted with a warning: the
 * connect-time check still guards every delivery.
 */
export async function checkEndpointHost(
  host: string,
  resolve: Resolver = systemResolver,
): Promise<HostCheck> {
  const name = host.replace(/\.$/, '').toLowerCase();
  if (isLocalhostName(name))
    return {ok: false, reason: 'url must point at a public host, not localhost', local: 'this_machine'};
  if (isIpLiteral(name)) {
    const ip = bareHostname(name);
    return isPublicAddress(ip)
      ? {ok: true, addresses: [ip]}
      : {ok: false, reason: NOT_PUBLIC, local: localKindOf(ip)};
  }
  let addresses: string[] = [];
  try {
    addresses = (await resolve(name)).map((a) => a.address);
  } catch {
    // answered below as unresolved
  }
  if (addresses.length === 0) {
    return {
      ok: true,
      addresses,
      warning:
        `the host ${name} could not be resolved now; the endpoint is saved, and every delivery checks ` +
        'its address again when it connects',
    };
  }
  if (!addresses.every(isPublicAddress)) {
    return {
      ok: false,
      reason: `must point at a public host, and ${name} resolves to a private, loopback or reserved address`,
      local: 'local_network',
    };
  }
  return {ok: true, addresses};
}

export class BlockedAddressError extends Error {
  readonly code = 'ESSRF';
  constructor(host: string) {
    super(`refused to connect to ${host}: it does not resolve to a public address`);
    this.name = 'BlockedAddressError';
  }
}

/** An IP-literal host never reaches a lookup, so it is judged before any connection is made. */
export function checkLiteralHost(hostname: string): void {
  const host = bareHostname(hostname);
  if (ipaddr.isValid(host) && !isPublicAddress(host)) throw new BlockedAddressError(host);
}

export type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** A `net.connect` lookup that resolves with `resolve` and keeps only public addresses. */
export function publicOnlyLookup(resolve: Resolver) {
  return (hostname: string, options: LookupOneOptions & {all?: boolean}, callback: LookupCallback): void => {
    resolve(hostname).then(
      (addresses) => {
        const allowed = addresses.filter((a) => isPublicAddress(a.address));
        if (allowed.length === 0) {
          callback(new BlockedAddressError(hostname) as NodeJS.ErrnoException, '', 0);
          return;
        }
        if (options?.all) callback(null, allowed);
        else callback(null, allowed[0]?.address ?? '', allowed[0]?.family ?? 4);
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 0),
    );
  };
}

/** The lookup of an emulator that allows local endpoints: any address, still through the injected resolver. */
export function anyAddressLookup(resolve: Resolver) {
  return (hostname: string, options: {all?: boolean}, callback: LookupCallback): void => {
    resolve(hostname).then(
      (list) =>
        options?.all ? callback(null, list) : callback(null, list[0]?.address ?? '', list[0]?.family ?? 4),
      (err: NodeJS.ErrnoException) => callback(err, '', 0),
    );
  };
}
