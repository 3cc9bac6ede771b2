// A `svc listen` run that asks for its relay stream and is gone at once (killed while it reconnected): the request
// is written over a raw connection, which is dropped before any answer comes.
import {connect} from 'node:net';

/**
 * Asks for `path` (a relay's stream) with the admin `token` and drops the connection; resolves once it is gone, with
 * false when the emulator took no connection (it stopped listening).
 */
export function askAndVanish(apiUrl: string, path: string, token: string): Promise<boolean> {
  const url = new URL(apiUrl);
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname, () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${token}\r\n\r\n`);
      setImmediate(() => socket.destroy());
    });
    socket.once('close', () => resolve(true));
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code !== 'ECONNREFUSED'));
  });
}
