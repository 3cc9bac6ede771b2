// Over a real server a header is read from Node's raw headers; it must read exactly as fetch's Headers gives it.
import fc from 'fast-check';
import type {Context} from 'hono';
import {describe, expect, it} from 'vitest';
import {requestHeader} from '../../src/emulator/net/request-header.js';

/** A context as the Node adapter builds it: the raw headers of the incoming message, and the Request. */
function served(rawHeaders: string[]): Context {
  const pairs: [string, string][] = [];
  for (let i = 0; i < rawHeaders.length; i += 2)
    pairs.push([rawHeaders[i] as string, rawHeaders[i + 1] as string]);
  const headers = new Headers(pairs);
  return {
    env: {incoming: {rawHeaders}},
    req: {header: (name: string) => headers.get(name) ?? undefined},
  } as unknown as Context;
}

const asHeaders = (rawHeaders: string[]) => served(rawHeaders).req.header('authorization');

describe('requestHeader', () => {
  it('finds a header whatever its case, and answers undefined when it is missing', () => {
    expect(requestHeader(served(['Host', 'x', 'AUTHORIZATION', 'Bearer a']), 'authorization')).toBe(
      'Bearer a',
    );
    expect(requestHeader(served(['Host', 'x']), 'authorization')).toBeUndefined();
  });

  it('trims HTTP whitespace and joins repeated headers like Headers does', () => {
    const raw = ['authorization', ' \tBearer a \r\n', 'x-other', '1', 'Authorization', 'Bearer b'];
    expect(requestHeader(served(raw), 'authorization')).toBe(asHeaders(raw));
    expect(requestHeader(served(raw), 'authorization')).toBe('Bearer a, Bearer b');
  });

  it('reads the same as Headers for any raw headers', () => {
    const name = fc.constantFrom('authorization', 'Authorization', 'AUTHORIZATION', 'host', 'x-a');
    // Header values Node can hand over: visible latin1 characters with spaces and tabs anywhere.
    const value = fc
      .array(
        fc.oneof(
          fc.integer({min: 0x21, max: 0x7e}),
          fc.integer({min: 0xa0, max: 0xff}),
          fc.constantFrom(0x20, 0x09),
        ),
        {maxLength: 20},
      )
      .map((codes) => String.fromCharCode(...codes));
    fc.assert(
      fc.property(fc.array(fc.tuple(name, value), {maxLength: 6}), (pairs) => {
        const raw = pairs.flat();
        expect(requestHeader(served(raw), 'authorization')).toBe(asHeaders(raw));
      }),
    );
  });

  it('asks the Request when the app is called in-process', () => {
    const c = {
      env: undefined,
      req: {header: (n: string) => (n === 'authorization' ? 'Bearer c' : undefined)},
    };
    expect(requestHeader(c as unknown as Context, 'authorization')).toBe('Bearer c');
  });
});
