// Reads a request header the way fetch's Headers would present it, from Node's raw headers when served over HTTP.
import type {Context} from 'hono';
import {incomingOf} from '../node-binding.js';

const HTTP_WHITESPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g;

/**
 * The value of header `lowerName` (lowercase), or undefined. On the real server this skips building the
 * Request's Headers object, which costs more than the rest of an authenticated GET answered from
 * memory; the result is the same: values trimmed of HTTP whitespace, repeated headers joined with ", ".
 */
export function requestHeader(c: Context, lowerName: string): string | undefined {
  const raw = incomingOf(c)?.rawHeaders;
  if (!raw) return c.req.header(lowerName);
  let value: string | undefined;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] as string;
    if (name.length !== lowerName.length || name.toLowerCase() !== lowerName) continue;
    const v = (raw[i + 1] as string).replace(HTTP_WHITESPACE, '');
    value = value === undefined ? v : `${value}, ${v}`;
  }
  return value;
}

/** The port a request reached, from the socket; an in-process request (tests) has none, so its URL's. */
export function servedPort(c: Context): number {
  const socket = incomingOf(c)?.socket;
  return socket?.localPort ?? Number(new URL(c.req.url).port || 80);
}
