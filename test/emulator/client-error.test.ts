// What Node's HTTP parser refuses before any route runs, and clients that leave mid-request: JSON answers in
// the error shape, and one plain log line instead of a stack.
import {connect, createServer, type Socket} from 'node:net';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js';
import {answerClientError} from '../../src/emulator/net/client-error.js';

let em: RunningEmulator;
const logged: string[] = [];
beforeAll(async () => {
  em = await startEmulator({port: 0, inMemory: true, log: (line) => logged.push(line)});
});
afterAll(() => em?.stop());

/** Sends raw bytes and reads everything the server answers until it closes the connection. */
function raw(bytes: string): Promise<string> {
  const url = new URL(em.apiUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    let answer = '';
    socket.on('data', (d) => {
      answer += d.toString('latin1');
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(answer));
    socket.write(bytes, 'latin1');
  });
}

function parse(answer: string): {
  status: number;
  headers: string;
  body: {error: {code: string; message: string}};
} {
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  return {status: Number(head.split(' ')[1]), headers: head, body: JSON.parse(body)};
}

describe('requests the HTTP parser refuses', () => {
  it('answers a header with bytes HTTP does not allow with 400 in the JSON error shape', async () => {
    const r = parse(await raw('GET /v1/org HTTP/1.1\r\nHost: x\r\nBad\u0001Name: y\r\n\r\n'));
    expect(r.status).toBe(400);
    expect(r.headers).toMatch(/content-type: application\/json/i);
    expect(r.body.error).toEqual({
      code: 'invalid_request',
      message: 'a request header holds characters HTTP does not allow',
    });
  });

  it('answers headers that are too large with 431 in the JSON error shape', async () => {
    const r = parse(await raw(`GET /v1/org HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(40_000)}\r\n\r\n`));
    expect(r.status).toBe(431);
    expect(r.body.error.code).toBe('invalid_request');
    expect(r.body.error.message).toMatch(/headers are too large: at most \d+ bytes/);
  });

  it('answers a request line that is not HTTP with 400 in the JSON error shape', async () => {
    const r = parse(await raw('HELLO THERE\r\n\r\n'));
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_request');
  });

  it('answers a request that timed out with 408 in the JSON error shape', async () => {
    // The server raises this after its headers timeout; the answer is the same function's, on a real socket.
    const server = createServer((socket: Socket) => {
      answerClientError(Object.assign(new Error('timeout'), {code: 'ERR_HTTP_REQUEST_TIMEOUT'}), socket);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as {port: number}).port;
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1');
        let text = '';
        socket.on('data', (d) => {
          text += d;
        });
        socket.on('error', reject);
        socket.on('close', () => resolve(text));
      });
      const r = parse(answer);
      expect(r.status).toBe(408);
      expect(r.body.error).toEqual({code: 'invalid_request', message: 'the request did not arrive in time'});
    } finally {
      server.close();
    }
  });
});

describe('a client that drops mid-body', () => {
  it('is logged as one line, without a stack', async () => {
    const url = new URL(em.apiUrl);
    const socket = connect(Number(url.port), url.hostname);
    await new Promise((resolve) => socket.once('connect', resolve));
    const closed = new Promise((resolve) => socket.once('close', resolve));
    const continued = new Promise((resolve) => socket.once('data', resolve));
    socket.write(
      'POST /_emulator/keys HTTP/1.1\r\nHost: localhost\r\n' +
        `Authorization: Bearer ${em.adminToken}\r\nContent-Type: application/json\r\n` +
        'Expect: 100-continue\r\nContent-Length: 1000\r\n\r\n',
    );
    // "100 Continue": the server has the request and waits for its body.
    await continued;
    socket.write('{"name":');
    socket.destroy();
    await closed;
    await expect
      .poll(() => logged.some((l) => l.includes('POST /_emulator/keys')), {timeout: 5_000})
      .toBe(true);
    const line = logged.find((l) => l.includes('POST /_emulator/keys')) as string;
    expect(line).toBe('the client closed the connection before its request was read: POST /_emulator/keys');
    expect(logged.join('\n')).not.toMatch(/\n\s+at /);
  });
});
