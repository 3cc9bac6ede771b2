// Which names the emulator answers to, against DNS rebinding: a web page whose own name comes to resolve to
// 127.0.0.1 reaches the emulator with that name in Host (and in Origin), so anything else than the names of
// this machine is refused before a route runs.
import {createMiddleware} from 'hono/factory';
import type {AppEnv} from '../app-env.js';
import {LOOPBACK_NAMES} from '../../definitions.js';
import {HttpError} from '../http-error.js';
import {accountOrigin, portOfAccountHostName} from '@svc/client';
import {servedPort} from './request-header.js';
import {bareHostname, isIpLiteral} from './address-policy.js';
import {isLinkHostName, LINK_PATH_PREFIX} from './link-host.js';

export interface HostPolicyOptions {
  /** The address the emulator listens on (`--host`). */
  boundHost: string;
  /** Further names it is reached by (`--allowed-host`: a container's or a tunnel's). */
  allowedHosts?: readonly string[];
}

export interface HostPolicy {
  /**
   * True when a request addressed to this host (a Host header or an Origin's host, port or not) may be served;
   * `port` is the one the request reached, which the page's own name must carry.
   */
  allows(host: string, port: number): boolean;
  /** The names allowed, for messages (besides the page's own name, when it has one). */
  readonly names: readonly string[];
  /** True when the emulator listens beyond this machine (every interface, or one that is not loopback). */
  readonly exposed: boolean;
  /**
   * True when a browser on this machine reaches the emulator by its own name, `svc-<port>.localhost`: it listens
   * on 127.0.0.1 or ::1 (or every interface), where browsers send those names. The account page then lives there.
   */
  readonly ownNames: boolean;
  /**
   * True for a Host every server on this machine shares (localhost, 127.x.x.x, [::1], 0.0.0.0): cookies set there reach
   * them all, so with own names the account page sets none there and sends the browser to its own name instead.
   */
  isShared(host: string): boolean;
  /**
   * True for a port session's own name (`link-<label>.localhost` on the port reached), with own names only: there
   * the emulator serves that port session and nothing else.
   */
  isLinkHost(host: string, port: number): boolean;
}

export class HostNameError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HostNameError';
  }
}

/** A host as WHATWG URL writes it (lowercase, IPv6 in brackets, IPv4 in four parts), without a port. */
export function normalizeHostName(host: string): string | undefined {
  const text = host.trim();
  if (text === '' || /[/?#@\s]/.test(text)) return undefined;
  const bracketed = text.includes(':') && !text.startsWith('[') && isIpLiteral(text) ? `[${text}]` : text;
  try {
    return new URL(`http://${bracketed}`).hostname;
  } catch {
    return undefined;
  }
}

function isUnspecified(hostname: string): boolean {
  return hostname === '0.0.0.0' || hostname === '[::]';
}

function isLoopback(hostname: string): boolean {
  const bare = bareHostname(hostname);
  return hostname === 'localhost' || bare === '::1' || /^127\.\d+\.\d+\.\d+$/.test(bare);
}

/** 127.x.x.x written as an IPv4-mapped IPv6 address, as URL normalises it (`[::ffff:7f00:1]`). */
const MAPPED_LOOPBACK = /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/;

/** Addresses a browser's `*.localhost` names reach: it tries 127.0.0.1 and ::1. */
function reachedByLocalhostNames(hostname: string): boolean {
  return (LOOPBACK_NAMES as readonly string[]).includes(hostname) || isUnspecified(hostname);
}

/**
 * True for `svc-<port>.localhost:<port>` with the port the request reached: the page's own name. Only the
 * browser's own loopback answers a `*.localhost` name, so no web page elsewhere can have it as its origin.
 */
function isOwnName(address: URL, port: number): boolean {
  return portOfAccountHostName(address.hostname) === port && Number(address.port || 80) === port;
}

/** True for a port session's name (`link-<label>.localhost`) with the port the request reached. */
function isLinkName(address: URL, port: number): boolean {
  return isLinkHostName(address.hostname) && Number(address.port || 80) === port;
}

export function createHostPolicy(options: HostPolicyOptions): HostPolicy {
  const bound = normalizeHostName(options.boundHost);
  if (!bound)
    throw new HostNameError(`--host ${JSON.stringify(options.boundHost)} is not a host name or address`);
  const extra = (options.allowedHosts ?? []).map((name) => {
    const normalized = normalizeHostName(name);
    if (!normalized) {
      throw new HostNameError(
        `--allowed-host ${JSON.stringify(name)} is not a host name (give a name like my-box.internal, no scheme or path)`,
      );
    }
    return normalized;
  });
  const names = [...new Set<string>([...LOOPBACK_NAMES, ...(isUnspecified(bound) ? [] : [bound]), ...extra])];
  const allowed = new Set(names);
  // Listening on every interface, the emulator is reached by any of the machine's addresses. An address typed
  // as a number cannot be rebound (the browser's origin is that address), so numbers are allowed then; names
  // still have to be listed.
  const anyAddress = isUnspecified(bound);
  const ownNames = reachedByLocalhostNames(bound);
  return {
    names,
    exposed: !isLoopback(bound),
    ownNames,
    allows(host: string, port: number): boolean {
      const address = parseHost(host);
      if (!address) return false;
      return (
        allowed.has(address.hostname) ||
        (anyAddress && isIpLiteral(address.hostname)) ||
        (ownNames && (isOwnName(address, port) || isLinkName(address, port)))
      );
    },
    isLinkHost(host: string, port: number): boolean {
      const address = parseHost(host);
      return ownNames && address !== undefined && isLinkName(address, port);
    },
    isShared(host: string): boolean {
      const hostname = parseHost(host)?.hostname;
      if (hostname === undefined) return false;
      return isLoopback(hostname) || isUnspecified(hostname) || MAPPED_LOOPBACK.test(hostname);
    },
  };
}

/** `host[:port]` read as an http URL's (normalised), or undefined when it is not one. */
function parseHost(host: string): URL | undefined {
  try {
    const url = new URL(`http://${host}`);
    // A Host header is a host and a port, nothing more.
    if (url.username || url.password || url.pathname !== '/' || url.search || url.hash) return undefined;
    return url;
  } catch {
    return undefined;
  }
}

/** The Host of a request: the header on a real server (missing, the address listened on), the URL's in-process. */
function requestHost(req: Request, header: string | undefined): string {
  return header ?? new URL(req.url).host;
}

/**
 * Refuses, before anything else runs, a request addressed to a name the emulator was not told it has: the
 * sign of DNS rebinding, where a page on another site reaches the emulator through its own name.
 */
export function hostCheck(policy: HostPolicy) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const host = requestHost(c.req.raw, c.req.header('host'));
    const port = servedPort(c);
    if (policy.isLinkHost(host, port) && !c.req.path.startsWith(`${LINK_PATH_PREFIX}/`)) {
      // A port session's own name serves that port session only: the app behind it, same-origin there, must reach
      // nothing else of the emulator (the account page, the mailbox, the control routes, another link).
      throw new HttpError(
        404,
        'not_found',
        'this name serves one port session only, under the link URL it was opened with',
      );
    }
    if (!policy.allows(host, port)) {
      const names = [...policy.names, ...(policy.ownNames ? [new URL(accountOrigin(port)).host] : [])];
      throw new HttpError(
        421,
        'misdirected_request',
        `this emulator answers only requests addressed to ${names.join(', ')} (or the address it listens on); ` +
          'to reach it by another name (a container, a tunnel) start it with --allowed-host NAME',
      );
    }
    await next();
  });
}
