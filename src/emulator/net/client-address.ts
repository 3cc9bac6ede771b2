// The address a request came from: the socket's peer on a real server, a test-provided one in-process.
import type {Context} from 'hono';

export function clientAddress(c: Context): string {
  const env = c.env as {incoming?: {socket?: {remoteAddress?: string}}} | undefined;
  return env?.incoming?.socket?.remoteAddress ?? 'unknown';
}
