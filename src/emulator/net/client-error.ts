// Requests Node's HTTP parser rejects before any route sees them (bytes HTTP does not allow, headers too
// large, a client too slow to send its request) get an answer in the same JSON error shape as the rest.
import type {Socket} from 'node:net';
import {maxHeaderSize, STATUS_CODES} from 'node:http';

interface Answer {
  status: number;
  message: string;
}

function answerFor(err: NodeJS.ErrnoException): Answer {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return {status: 431, message: `the request headers are too large: at most ${maxHeaderSize} bytes`};
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return {status: 408, message: 'the request did not arrive in time'};
    case 'HPE_INVALID_HEADER_TOKEN':
    case 'HPE_INVALID_HEADER_VALUE':
    case 'HPE_INVALID_HEADER':
      return {status: 400, message: 'a request header holds characters HTTP does not allow'};
    default:
      return {status: 400, message: 'the request is not valid HTTP/1.1'};
  }
}

/** The server's `clientError` listener: one JSON answer, then the connection closes. */
export function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  // A reset connection, or one already answering: there is nobody to tell.
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const {status, message} = answerFor(err);
  const body = JSON.stringify({error: {code: 'invalid_request', message}});
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
      'Content-Type: application/json\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
}
