// Rules that hold for every input, checked with fast-check on both verifiers.
import fc from 'fast-check';
import {describe, expect, it} from 'vitest';
import {
  AsyncWebhookVerifier,
  signPayload,
  signPayloadAsync,
  verifySignature,
  verifySignatureAsync,
  WebhookVerifier,
} from '../../src/webhooks/index.js';
import {outcome, outcomeAsync} from '../helpers/verification-outcome.js';

const secretArb = fc.string({unit: 'binary', minLength: 1, maxLength: 60});
const payloadArb = fc.oneof(fc.string({unit: 'binary', maxLength: 300}), fc.uint8Array({maxLength: 300}));
const timeArb = fc.integer({min: 0, max: 2 ** 40});
const toleranceArb = fc.integer({min: 0, max: 10 ** 6});

/** The outcome every verifier must give: verifySignature, a WebhookVerifier and the WebCrypto verifier. */
async function expectEveryVerifier(
  options: {
    secret: string;
    payload: string | Uint8Array;
    header: string;
    now: number;
    toleranceSeconds?: number;
  },
  expected: string,
): Promise<void> {
  const {secret, toleranceSeconds, ...request} = options;
  expect(outcome(() => verifySignature(options))).toBe(expected);
  expect(outcome(() => new WebhookVerifier({secret, toleranceSeconds}).verify(request))).toBe(expected);
  expect(await outcomeAsync(() => verifySignatureAsync(options))).toBe(expected);
}

function v1Of(header: string): string {
  return header.slice(header.indexOf('v1=') + 3);
}

describe('signing then verifying', () => {
  it('always succeeds when now is within the tolerance, in either direction', async () => {
    await fc.assert(
      fc.asyncProperty(
        secretArb,
        payloadArb,
        timeArb,
        toleranceArb,
        fc.double({min: -1, max: 1, noNaN: true}),
        async (secret, payload, t, tolerance, fraction) => {
          const now = t + Math.trunc(fraction * tolerance);
          const header = signPayload({secret, payload, timestamp: t});
          expect(await signPayloadAsync({secret, payload, timestamp: t})).toBe(header);
          const options = {secret, payload, header, now, toleranceSeconds: tolerance};
          expect(verifySignature(options)).toEqual({timestamp: t, secretIndex: 0});
          expect(await verifySignatureAsync(options)).toEqual({timestamp: t, secretIndex: 0});
        },
      ),
    );
  });

  it('always fails with timestamp_outside_tolerance beyond the tolerance, in either direction', async () => {
    await fc.assert(
      fc.asyncProperty(
        secretArb,
        payloadArb,
        fc.integer({min: 10 ** 7, max: 2 ** 40}),
        fc.integer({min: 0, max: 10 ** 6}),
        fc.integer({min: 1, max: 10 ** 6}),
        fc.boolean(),
        async (secret, payload, t, tolerance, beyond, future) => {
          const header = signPayload({secret, payload, timestamp: t});
          const now = future ? t - tolerance - beyond : t + tolerance + beyond;
          const options = {secret, payload, header, now, toleranceSeconds: tolerance};
          await expectEveryVerifier(options, 'timestamp_outside_tolerance');
        },
      ),
    );
  });
});

describe('changing any one thing breaks the signature', () => {
  it('one byte of the body', async () => {
    await fc.assert(
      fc.asyncProperty(
        secretArb,
        fc.uint8Array({minLength: 1, maxLength: 300}),
        fc.nat(),
        fc.integer({min: 1, max: 255}),
        timeArb,
        async (secret, body, at, flip, t) => {
          const header = signPayload({secret, payload: body, timestamp: t});
          const changed = Uint8Array.from(body);
          changed[at % changed.length]! ^= flip;
          const options = {secret, payload: changed, header, now: t};
          await expectEveryVerifier(options, 'signature_mismatch');
        },
      ),
    );
  });

  it('the timestamp', async () => {
    await fc.assert(
      fc.asyncProperty(secretArb, payloadArb, timeArb, timeArb, async (secret, payload, t, other) => {
        fc.pre(t !== other);
        const header = `t=${other},v1=${v1Of(signPayload({secret, payload, timestamp: t}))}`;
        const options = {secret, payload, header, now: other};
        await expectEveryVerifier(options, 'signature_mismatch');
      }),
    );
  });

  it('one character of the signature: another hex digit, its uppercase, or a wider character with the same low byte', async () => {
    await fc.assert(
      fc.asyncProperty(
        secretArb,
        payloadArb,
        timeArb,
        fc.integer({min: 0, max: 63}),
        fc.oneof(fc.integer({min: 1, max: 15}), fc.constantFrom('upper', 'wide')),
        async (secret, payload, t, at, how) => {
          const header = signPayload({secret, payload, timestamp: t});
          const v1 = v1Of(header);
          const original = v1[at] as string;
          // 'wide' keeps the low byte (U+0161 for "a", U+0130 for "0"): a comparison that narrowed the header's
          // text to bytes one char at a time would take it for the original digit.
          const swapped =
            typeof how === 'number'
              ? ((Number.parseInt(original, 16) + how) % 16).toString(16)
              : how === 'upper'
                ? original.toUpperCase()
                : String.fromCharCode(0x100 | original.charCodeAt(0));
          fc.pre(swapped !== original);
          const forged = `t=${t},v1=${v1.slice(0, at)}${swapped}${v1.slice(at + 1)}`;
          // Another digit is a well-formed v1 that does not match; anything else is no lowercase-hex v1 at all,
          // so nothing in the header could match.
          const expected = typeof how === 'number' ? 'signature_mismatch' : 'no_signature';
          await expectEveryVerifier({secret, payload, header: forged, now: t}, expected);
        },
      ),
    );
  });

  it('one character of the secret', async () => {
    await fc.assert(
      fc.asyncProperty(
        secretArb,
        fc.nat(),
        fc.string({unit: 'binary', minLength: 1, maxLength: 1}),
        payloadArb,
        timeArb,
        async (secret, at, replacement, payload, t) => {
          const chars = [...secret];
          const i = at % chars.length;
          fc.pre(chars[i] !== replacement);
          chars[i] = replacement;
          const header = signPayload({secret, payload, timestamp: t});
          const options = {secret: chars.join(''), payload, header, now: t};
          await expectEveryVerifier(options, 'signature_mismatch');
        },
      ),
    );
  });
});

// Header strings built from the characters that matter, so generated cases reach deep into the parser.
const headerPiece = fc.oneof(
  fc.constantFrom('t', 'v1', 'v0', 'v2', '=', ',', ' ', '\t', '-', '.', '1767225600', '0', 'e9'),
  fc.stringMatching(/^[0-9a-f]{64}$/),
  fc.stringMatching(/^[0-9a-fA-Fxz]{60,66}$/),
);
const headerArb = fc.oneof(
  fc.string({unit: 'binary', maxLength: 200}),
  fc.array(headerPiece, {maxLength: 20}).map((parts) => parts.join('')),
);

describe('any header', () => {
  it('yields success or a WebhookVerificationError, never another exception, and all verifiers agree', async () => {
    const verifier = new WebhookVerifier({secret: 'whsec_property'});
    const asyncVerifier = new AsyncWebhookVerifier({secret: 'whsec_property'});
    await fc.assert(
      fc.asyncProperty(headerArb, payloadArb, async (header, payload) => {
        const options = {secret: 'whsec_property', payload, header, now: 1767225600};
        const sync = outcome(() => verifySignature(options));
        const web = await outcomeAsync(() => verifySignatureAsync(options));
        expect(web).toBe(sync);
        expect(outcome(() => verifier.verify(options))).toBe(sync);
        expect(await outcomeAsync(() => asyncVerifier.verify(options))).toBe(sync);
      }),
      {numRuns: 500},
    );
  });

  it('takes the same decision on the fast path for the canonical form as on the general path', () => {
    // A leading space is ignored by the rule but always sends the header down the general path.
    const near = fc
      .tuple(
        fc.oneof(fc.stringMatching(/^[0-9]{1,16}$/), fc.stringMatching(/^[0-9 \t.e-]{0,12}$/)),
        fc.oneof(fc.stringMatching(/^[0-9a-f]{64}$/), fc.stringMatching(/^[0-9a-fA-F ,\t=z]{62,66}$/)),
      )
      .map(([t, v1]) => `t=${t},v1=${v1}`);
    fc.assert(
      fc.property(fc.oneof(near, headerArb), payloadArb, (header, payload) => {
        const run = (h: string) =>
          outcome(() => verifySignature({secret: 'whsec_p', payload, header: h, now: 0}));
        expect(run(header)).toBe(run(` ${header}`));
      }),
      {numRuns: 1000},
    );
  });

  it('is judged the same whatever the entry order and the whitespace around entries', async () => {
    const space = fc.constantFrom('', ' ', '  ', '\t', ' \t ');
    await fc.assert(
      fc.asyncProperty(
        secretArb,
        payloadArb,
        timeArb,
        fc.array(fc.stringMatching(/^[0-9a-f]{64}$/), {maxLength: 3}),
        fc.array(fc.tuple(space, space), {minLength: 8, maxLength: 8}),
        fc.nat(),
        async (secret, payload, t, decoys, spaces, seed) => {
          const header = signPayload({secret, payload, timestamp: t});
          const entries = [`t=${t}`, `v1=${v1Of(header)}`, 'v0=ignored', ...decoys.map((d) => `v1=${d}`)];
          // A seeded Fisher-Yates shuffle: fast-check shrinks the seed along with everything else.
          let s = seed;
          for (let i = entries.length - 1; i > 0; i--) {
            s = (s * 1103515245 + 12345) % 2 ** 31;
            const j = s % (i + 1);
            [entries[i], entries[j]] = [entries[j]!, entries[i]!];
          }
          const shuffled = entries.map((e, i) => `${spaces[i]![0]}${e}${spaces[i]![1]}`).join(',');
          const options = {secret, payload, header: shuffled, now: t};
          expect(verifySignature(options).timestamp).toBe(t);
          expect((await verifySignatureAsync(options)).timestamp).toBe(t);
        },
      ),
    );
  });
});

describe('rotation', () => {
  it('accepts when any secret matches any v1, and reports which secret matched', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(secretArb, {minLength: 1, maxLength: 4}),
        fc.nat(),
        payloadArb,
        timeArb,
        async (secrets, pick, payload, t) => {
          const index = pick % secrets.length;
          const signed = signPayload({secret: secrets[index]!, payload, timestamp: t});
          const header = `t=${t},v1=${'0'.repeat(64)},v1=${v1Of(signed)}`;
          const options = {secrets, payload, header, now: t};
          // Several secrets could in principle collide; a unique array of random strings never does.
          expect(verifySignature(options).secretIndex).toBe(index);
          expect((await verifySignatureAsync(options)).secretIndex).toBe(index);
        },
      ),
    );
  });
});
