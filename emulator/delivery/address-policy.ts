// Delivery-time SSRF guard: a receiver may only be reached on a public address, checked at connect time so
// DNS rebinding between registration and delivery cannot reach loopback or private ranges.
import {lookup as dnsLookup} from 'node:dns/promises';
import type {LookupAddress, LookupOneOptions} from 'node:dns';
import ipaddr from 'ipaddr.js';
import {isPublicAddress} from '../net/endpoint-url.js';

export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolver: Resolver = (hostname) => dnsLookup(hostname, {all: true, verbatim: true});

export {isPublicAddress};

export class BlockedAddressError extends Error {
  readonly code = 'ESSRF';
  constructor(host: string) {
    super(`refused to connect to ${host}: it does not resolve to a public address`);
    this.name = 'BlockedAddressError';
  }
}

/** Strips the brackets WHATWG URL keeps around IPv6 literals. */
export function bareHostname(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/** An IP-literal host never reaches `lookup`, so it is judged before any connection is made. */
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
