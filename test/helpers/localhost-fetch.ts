// fetch as a browser resolves names: every `*.localhost` name is loopback without asking DNS (RFC 6761), which
// Node's resolver does not do. Tests reach the account page at its own name (svc-<port>.localhost) through it.
import {
  lookup as dnsLookup,
  type LookupAddress,
  type LookupAllOptions,
  type LookupOneOptions,
} from 'node:dns';
import {Agent, fetch as undiciFetch} from 'undici';

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

function browserLookup(
  hostname: string,
  options: LookupOneOptions | LookupAllOptions,
  callback: LookupCallback,
) {
  if (!hostname.toLowerCase().endsWith('.localhost')) {
    dnsLookup(hostname, options as LookupAllOptions, callback as never);
    return;
  }
  if (options.all) callback(null, [{address: '127.0.0.1', family: 4}]);
  else callback(null, '127.0.0.1', 4);
}

const agent = new Agent({connect: {lookup: browserLookup as never}});

/** fetch, with `*.localhost` names resolved to 127.0.0.1 as browsers do. */
export const localhostFetch = ((input: string | URL, init?: RequestInit) =>
  undiciFetch(input, {...(init as object), dispatcher: agent})) as unknown as typeof fetch;
