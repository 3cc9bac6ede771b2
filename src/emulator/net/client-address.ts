// The address a request came from: the socket's peer on a real server, a test-provided one in-process.
import type {Context} from 'hono';
import {incomingOf} from '../node-binding.js';

export function clientAddress(c: Context): string {
  return incomingOf(c)?.socket?.remoteAddress ?? 'unknown';
}

/** The one name every loopback address is counted under: any process on this machine can use them all. */
export const LOOPBACK_CLIENT = 'loopback';

const IPV4_LOOPBACK = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;
const MAPPED_IPV4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/**
 * Who a request counts as for the failed-authentication limiter: its address, except that all of 127.0.0.0/8,
 * `::1` and their IPv4-mapped forms are one address, so moving within them starts no new budget.
 */
export function limiterClient(address: string): string {
  const plain = MAPPED_IPV4.exec(address)?.[1] ?? address;
  if (IPV4_LOOPBACK.test(plain) || plain === '::1' || /^(0{1,4}:){7}0{0,3}1$/.test(plain))
    return LOOPBACK_CLIENT;
  return plain.toLowerCase();
}

/** The limiter's name for the client of this request. */
export function limiterAddress(c: Context): string {
  return limiterClient(clientAddress(c));
}
