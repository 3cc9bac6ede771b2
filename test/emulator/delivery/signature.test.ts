// The delivery signer with its prepared key says exactly what the shared signer and the test vectors say.
import {readFileSync} from 'node:fs';
import fc from 'fast-check';
import {describe, expect, it} from 'vitest';
import {signatureHeader, signerFor} from '../../../emulator/delivery/signature.js';

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
  JSON.parse(readFileSync(new URL('../../../fixtures/webhooks/vectors.json', import.meta.url), 'utf8')) as {
    vectors: Vector[];
  }
).vectors;

describe('signerFor', () => {
  it('produces the header of every valid single-secret vector', () => {
    const valid = vectors.filter(
      (v) =>
        v.expected === 'ok' &&
        v.secrets.length === 1 &&
        v.body_encoding === 'utf8' &&
        /^t=\d+,v1=[0-9a-f]{64}$/.test(v.header),
    );
    expect(valid.length).toBeGreaterThan(0);
    for (const v of valid) expect(signerFor(v.secrets[0] as string)(v.t, v.body), v.name).toBe(v.header);
  });

  it('agrees with the shared signer for any secret, time and body, however often a key is reused', () => {
    fc.assert(
      fc.property(
        fc.string({minLength: 1}),
        fc.array(fc.tuple(fc.integer({min: 0, max: 2 ** 40}), fc.string()), {minLength: 1, maxLength: 4}),
        (secret, attempts) => {
          const sign = signerFor(`whsec_${secret}`);
          for (const [t, body] of attempts)
            expect(sign(t, body)).toBe(signatureHeader(`whsec_${secret}`, t, body));
        },
      ),
    );
  });

  it('refuses an empty secret', () => {
    expect(() => signerFor('')).toThrow(TypeError);
  });
});
