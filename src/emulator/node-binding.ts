// Node's request and response behind a request on the real server, which @hono/node-server hands the app as the
// context's env. An in-process app.request (tests) has neither, or only the parts a test stands in for. Read here
// and nowhere else.
import type {IncomingMessage, ServerResponse} from 'node:http';
import type {Context} from 'hono';

/** The parts of Node's request the emulator reads; any may be missing (in-process, or a test's stand-in). */
export interface IncomingParts {
  rawHeaders?: string[];
  socket?: {remoteAddress?: string; localAddress?: string; localPort?: number; destroyed?: boolean};
}

const bindingOf = (c: Context) => c.env as {incoming?: unknown; outgoing?: unknown} | undefined;

/** Node's request as far as it is there: its raw headers and its socket. */
export function incomingOf(c: Context): IncomingParts | undefined {
  return bindingOf(c)?.incoming as IncomingParts | undefined;
}

/** Node's request (and its response) whole, on the real server; undefined for an in-process app.request. */
export function nodeOf(c: Context): {incoming: IncomingMessage; outgoing?: ServerResponse} | undefined {
  const env = bindingOf(c) as {incoming?: IncomingMessage; outgoing?: ServerResponse} | undefined;
  if (typeof env?.incoming?.on !== 'function') return undefined;
  return {
    incoming: env.incoming,
    outgoing: typeof env.outgoing?.once === 'function' ? env.outgoing : undefined,
  };
}
