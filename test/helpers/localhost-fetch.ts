// fetch as a browser resolves names: every `*.localhost` name is loopback without asking DNS (RFC 6761), which
// Node's resolver does not do. Tests reach the account page at its own name (svc-<port>.localhost) through it,
// with the lookup @svc/client hands out for that.
import {Agent, fetch as undiciFetch} from 'undici';
import {localhostLookup} from '../../src/client/index.js';

const agent = new Agent({connect: {lookup: localhostLookup as never}});

/** fetch, with `*.localhost` names resolved to 127.0.0.1 as browsers do. */
export const localhostFetch = ((input: string | URL, init?: RequestInit) =>
  undiciFetch(input, {...(init as object), dispatcher: agent})) as unknown as typeof fetch;
