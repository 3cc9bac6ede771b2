// The body read straight from Node's request (src/emulator/net/body-text.ts), through a Hono app as the real server
// runs it: pieces that arrive one by one, a client gone before the end, and the Request path where there is no
// Node request or no declared length.
import {PassThrough} from 'node:stream';
import {Hono} from 'hono';
import {describe, expect, it} from 'vitest';
import {bodyText} from '../../src/emulator/net/body-text.js';

/** A Node request stand-in: a real stream with the headers Node's parser would have set. */
function incoming(headers: Record<string, string>) {
  return Object.assign(new PassThrough(), {headers});
}

function app() {
  const a = new Hono();
  a.post('/', async (c) => {
    try {
      // Asked twice, as a control token's scope check and then the route do: one read, the same text.
      const [first, second] = await Promise.all([bodyText(c), bodyText(c)]);
      return c.json({first, same: first === second});
    } catch (err) {
      return c.json({error: (err as NodeJS.ErrnoException).code}, 499 as never);
    }
  });
  return a;
}

const post = (body?: string) => new Request('http://emulator.test/', {method: 'POST', body});

describe('a request body read from the socket', () => {
  it('joins the pieces as they arrive, and decodes a character split between two of them', async () => {
    const text = '{"name": "caf\u00e9 ✓"}';
    const bytes = Buffer.from(text);
    const from = incoming({'content-length': String(bytes.length)});
    const answer = app().fetch(post(), {incoming: from});
    let pieces = 0;
    from.on('data', () => pieces++);
    // "é" is two bytes: the first piece ends between them.
    const cut = bytes.indexOf(0xc3) + 1;
    from.write(bytes.subarray(0, cut));
    from.write(bytes.subarray(cut, cut + 3));
    from.end(bytes.subarray(cut + 3));
    expect(await (await answer).json()).toEqual({first: text, same: true});
    expect(pieces).toBe(3);
  });

  it('fails the read as a connection reset when the client goes away before the end', async () => {
    const from = incoming({'content-length': '100'});
    const answer = app().fetch(post(), {incoming: from});
    from.write('{"name": ');
    from.destroy();
    const res = await answer;
    expect(res.status).toBe(499);
    expect(await res.json()).toEqual({error: 'ECONNRESET'});
  });

  it('reads through the Request when the length is not declared, or there is no Node request', async () => {
    const chunked = incoming({'transfer-encoding': 'chunked'});
    chunked.end('{"never": "read from here"}');
    const viaRequest = await app().fetch(post('{"a": 1}'), {incoming: chunked});
    expect(await viaRequest.json()).toEqual({first: '{"a": 1}', same: true});
    const inMemory = await app().request('/', {method: 'POST', body: '{"b": 2}'});
    expect(await inMemory.json()).toEqual({first: '{"b": 2}', same: true});
  });
});
