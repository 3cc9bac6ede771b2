// A `lookup` that resolves names as browsers do: every `*.localhost` name is this machine (RFC 6761), without
// asking DNS. The emulator serves each port session at a name of its own (`link-<label>.localhost`) and its account
// page at `svc-<port>.localhost`; browsers and curl reach them, but Node's resolver (getaddrinfo) and Python's do
// not on many Linux systems. Passed to node:http (`{lookup}`) or to undici (`new Agent({connect: {lookup}})`), it
// lets a program call those URLs as they are; any other name goes to Node's own lookup unchanged.
import {
  type LookupAddress,
  type LookupAllOptions,
  type LookupOneOptions,
  lookup as dnsLookup,
} from 'node:dns';

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** True for `localhost` and every name under it (`link-….localhost`, `svc-4010.localhost`), in any case. */
function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/**
 * `dns.lookup` with every `*.localhost` name answered 127.0.0.1 (where the emulator listens), as browsers do;
 * other names are looked up by Node as usual. For node:http's and undici's `lookup` option.
 */
export function localhostLookup(
  hostname: string,
  options: LookupOneOptions | LookupAllOptions | number | LookupCallback,
  callback?: LookupCallback,
): void {
  const done = (typeof options === 'function' ? options : callback) as LookupCallback;
  const opts = typeof options === 'function' ? {} : typeof options === 'number' ? {family: options} : options;
  if (!isLocalhostName(hostname)) {
    dnsLookup(hostname, opts as LookupAllOptions, done as never);
    return;
  }
  if ((opts as LookupAllOptions).all) done(null, [{address: '127.0.0.1', family: 4}]);
  else done(null, '127.0.0.1', 4);
}
