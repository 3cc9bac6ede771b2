// fetch as a browser resolves names: every `*.localhost` name is loopback without asking DNS (RFC 6761), which
// Node's resolver does not do. Tests reach the account page at its own name (svc-<port>.localhost) through it,
// with the lookup @svc/client hands out for that.
import {Agent, fetch as undiciFetch} from 'undici';
import {localhostLookup} from '../../src/client/index.js';

const agent = new Agent({connect: {lookup: localhostLookup as never}});

/** A kept-alive connection the server closed as the request went out (its idle timeout, late on a loaded machine). */
const closedUnderneath = (err: unknown) => {
  const code = (err as {cause?: {code?: string}}).cause?.code;
  return code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE';
};

/**
 * fetch, with `*.localhost` names resolved to 127.0.0.1 as browsers do; and, as browsers do, a request whose
 * kept-alive connection was closed under it before any answer is sent once more on a new one. Bodies here are
 * strings, so the second send is the same request.
 */
export const localhostFetch = (async (input: string | URL, init?: RequestInit) => {
  const send = () => undiciFetch(input, {...(init as object), dispatcher: agent});
  try {
    return await send();
  } catch (err) {
    if (!closedUnderneath(err)) throw err;
    return send();
  }
}) as unknown as typeof fetch;
