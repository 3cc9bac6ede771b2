// The reusable signer (what the emulator signs every attempt with) says exactly what signPayload and the test
// vectors say, and refuses what signPayload refuses.
import {readFileSync} from 'node:fs';
import fc from 'fast-check';
import {describe, expect, it} from 'vitest';
import {signPayload, verifySignature, WebhookSigner} from '../../src/webhooks/index.js';

interface Vector {
  name: string;
  secrets: string[];
  t: number;
  body: string;
  body_encoding: string;
  header: string;
  expected: string;
}

const vectors = (
  JSON.parse(readFileSync(new URL('../../fixtures/webhooks/vectors.json', import.meta.url), 'utf8')) as {
    vectors: Vector[];
  }
).vectors;

describe('WebhookSigner', () => {
  it('produces the header of every valid single-secret vector', () => {
    const valid = vectors.filter(
      (v) =>
        v.expected === 'ok' &&
        v.secrets.length === 1 &&
        v.body_encoding === 'utf8' &&
        /^t=\d+,v1=[0-9a-f]{64}$/.test(v.header),
    );
    expect(valid.length).toBeGreaterThan(0);
    for (const v of valid) {
      const signer = new WebhookSigner({secret: v.secrets[0] as string});
      expect(signer.sign({payload: v.body, timestamp: v.t}), v.name).toBe(v.header);
    }
  });

  it('agrees with signPayload for any secret, time and body, however often a key is reused', () => {
    fc.assert(
      fc.property(
        fc.string({minLength: 1}),
        fc.array(fc.tuple(fc.integer({min: 0, max: 2 ** 40}), fc.string()), {minLength: 1, maxLength: 4}),
        (secret, attempts) => {
          const signer = new WebhookSigner({secret: `whsec_${secret}`});
          for (const [t, body] of attempts) {
            expect(signer.sign({payload: body, timestamp: t})).toBe(
              signPayload({secret: `whsec_${secret}`, payload: body, timestamp: t}),
            );
          }
        },
      ),
    );
  });

  it('signs bytes and Dates as signPayload does, and what it signs verifies', () => {
    const secret = 'whsec_c2lnbmVy';
    const signer = new WebhookSigner({secret});
    const at = new Date('2026-01-02T03:04:05.678Z');
    const body = new TextEncoder().encode('{"id":"evt_1"}');
    const header = signer.sign({payload: body, timestamp: at});
    expect(header).toBe(signPayload({secret, payload: body, timestamp: at}));
    expect(header.startsWith(`t=${Math.floor(at.getTime() / 1000)},v1=`)).toBe(true);
    expect(verifySignature({secret, payload: body, header, now: at}).timestamp).toBe(
      Math.floor(at.getTime() / 1000),
    );
  });

  it('refuses an empty secret, a payload that is not text or bytes, and a time before 1970', () => {
    expect(() => new WebhookSigner({secret: ''})).toThrow(TypeError);
    const signer = new WebhookSigner({secret: 'whsec_x'});
    const notBytes = 42 as unknown as string;
    expect(() => signer.sign({payload: notBytes, timestamp: 1})).toThrow(/raw body/);
    expect(() => signPayload({secret: 'whsec_x', payload: notBytes, timestamp: 1})).toThrow(/raw body/);
    expect(() => signer.sign({payload: '{}', timestamp: -1})).toThrow(TypeError);
  });
});
