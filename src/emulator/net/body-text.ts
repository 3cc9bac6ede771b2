// A request's body, on the real server without the fetch Request that @hono/node-server would build for it (a web
// stream over the Node stream, and its headers and signal): building it cost more than the rest of a small control
// call, about 140 µs of 170 µs in a bare Hono route, and it stayed alive while a wait held the request open.
// Three parts: the size limit, checked from the declared length; the text, read once per request whoever asks (a
// control token's scope check reads it before the route does), straight from Node's request; and the signal that
// the client went away. Without a Node request (an in-process app.request), each falls back to the Request's.
import type {IncomingMessage} from 'node:http';
import type {Context, MiddlewareHandler} from 'hono';
import {bodyLimit} from 'hono/body-limit';
import {clientHasGone} from '../http-error.js';
import {nodeOf} from '../node-binding.js';
import {requestHeader} from './request-header.js';

/**
 * Refuses (with `onError`) a body over `maxSize` bytes. A declared length is checked without reading the body (Node's
 * parser reads no more than it); a body sent in chunks is read and counted as Hono's bodyLimit does, and one with
 * neither has no body.
 */
export function limitBody(
  maxSize: number,
  onError: (c: Context) => Response | Promise<Response>,
): MiddlewareHandler {
  const counted = bodyLimit({maxSize, onError});
  return async (c, next) => {
    if (!nodeOf(c) || requestHeader(c, 'transfer-encoding') !== undefined) return counted(c, next);
    const length = requestHeader(c, 'content-length');
    if (length !== undefined && Number.parseInt(length, 10) > maxSize) return onError(c);
    await next();
  };
}

/** Aborts when the client goes away before its answer is sent, as the Request's signal does, without building it. */
export function clientGone(c: Context): AbortSignal {
  const outgoing = nodeOf(c)?.outgoing;
  if (!outgoing) return c.req.raw.signal;
  const gone = new AbortController();
  // Gone already (before the route asked): its close has been and will not come again.
  if (clientHasGone(c)) gone.abort(new Error('the client went away'));
  else
    outgoing.once('close', () => {
      if (!outgoing.writableFinished) gone.abort(new Error('the client went away'));
    });
  return gone.signal;
}

const read = new WeakMap<Context, Promise<string>>();
const utf8 = new TextDecoder();

/** The body as UTF-8 text (a leading BOM dropped, as Request.text() does); the same promise for every caller. */
export function bodyText(c: Context): Promise<string> {
  let text = read.get(c);
  if (!text) {
    const incoming = untouched(c);
    text = incoming ? readAll(incoming) : c.req.text();
    read.set(c, text);
  }
  return text;
}

/**
 * Node's request, when the body can be read from it: its length is declared (limitBody before the route has checked
 * it, and Node's parser reads no more than that) and nothing has started reading it.
 */
function untouched(c: Context): IncomingMessage | undefined {
  const incoming = nodeOf(c)?.incoming;
  if (!incoming) return undefined;
  if (incoming.headers['content-length'] === undefined) return undefined;
  if (incoming.readableDidRead || incoming.readableFlowing !== null || incoming.listenerCount('data') > 0)
    return undefined;
  return incoming;
}

function readAll(incoming: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const done = (err?: Error) => {
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', done);
      incoming.off('close', onClose);
      if (err) reject(err);
    };
    const onData = (chunk: Buffer) => chunks.push(chunk);
    const onEnd = () => {
      done();
      resolve(utf8.decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
    };
    // The client went away before the whole body came.
    const onClose = () => done(Object.assign(new Error('aborted'), {code: 'ECONNRESET'}));
    incoming.on('data', onData);
    incoming.on('end', onEnd);
    incoming.on('error', done);
    incoming.on('close', onClose);
  });
}
