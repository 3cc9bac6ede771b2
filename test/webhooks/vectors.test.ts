// Every shared test vector, against both verifiers. The expected values are also re-derived here with a
// few lines of plain node:crypto, so a vector file and a library that are wrong the same way cannot agree.
import {createHmac} from 'node:crypto';
import {readFileSync} from 'node:fs';
import {describe, expect, it} from 'vitest';
import {
  AsyncWebhookVerifier,
  constructEvent,
  constructEventAsync,
  VERIFICATION_FAILURE_REASONS,
  verifySignature,
  verifySignatureAsync,
  WebhookVerifier,
} from '../../src/webhooks/index.js';
import {outcome, outcomeAsync} from '../helpers/verification-outcome.js';

interface Vector {
  name: string;
  description: string;
  operation?: 'construct_event';
  secrets: string[];
  t: number;
  now: number;
  tolerance_seconds: number;
  body: string;
  body_encoding: 'utf8' | 'base64';
  header: string;
  expected: string;
}

const file = JSON.parse(
  readFileSync(new URL('../../fixtures/webhooks/vectors.json', import.meta.url), 'utf8'),
) as {
  vectors: Vector[];
};
const vectors = file.vectors;

const bodyOf = (v: Vector) => (v.body_encoding === 'base64' ? Buffer.from(v.body, 'base64') : v.body);

/** The signature rule written out independently of the library: does any (secret, v1) pair match? */
function independentlyMatches(v: Vector): boolean {
  const entries = v.header.split(',').map((e) => e.trim());
  const t = entries.find((e) => e.startsWith('t='))?.slice(2);
  const v1s = entries.filter((e) => e.startsWith('v1=')).map((e) => e.slice(3));
  return v.secrets.some((secret) => {
    const mac = createHmac('sha256', Buffer.from(secret, 'utf8'))
      .update(Buffer.concat([Buffer.from(`${t}.`), Buffer.from(bodyOf(v))]))
      .digest('hex');
    return v1s.includes(mac);
  });
}

describe('fixtures/webhooks/vectors.json', () => {
  it('has at least 30 vectors, unique names, and covers every failure reason and both tolerance edges', () => {
    expect(vectors.length).toBeGreaterThanOrEqual(30);
    expect(new Set(vectors.map((v) => v.name)).size).toBe(vectors.length);
    const expected = new Set(vectors.map((v) => v.expected));
    for (const reason of VERIFICATION_FAILURE_REASONS) expect(expected).toContain(reason);
    const ages = vectors
      .filter((v) => v.header.startsWith(`t=${v.t},`))
      .map((v) => `${v.now - v.t}:${v.expected}`);
    expect(ages).toEqual(
      expect.arrayContaining([
        '300:ok',
        '-300:ok',
        '301:timestamp_outside_tolerance',
        '-301:timestamp_outside_tolerance',
      ]),
    );
    expect(vectors.some((v) => v.body_encoding === 'base64')).toBe(true);
    expect(vectors.some((v) => v.secrets.length > 1)).toBe(true);
  });

  it('agrees with an independent HMAC computation on which vectors carry a matching signature', () => {
    for (const v of vectors) {
      const shouldMatch =
        v.expected === 'ok' ||
        v.expected === 'timestamp_outside_tolerance' ||
        (v.expected === 'invalid_payload' && v.operation === 'construct_event');
      if (shouldMatch) expect(independentlyMatches(v), v.name).toBe(true);
      if (v.expected === 'signature_mismatch') expect(independentlyMatches(v), v.name).toBe(false);
    }
  });

  for (const v of vectors) {
    const options = () => ({
      payload: bodyOf(v),
      header: v.header,
      secrets: v.secrets,
      now: v.now,
      toleranceSeconds: v.tolerance_seconds,
    });
    it(`${v.name}: ${v.expected} (sync)`, () => {
      const run =
        v.operation === 'construct_event'
          ? () => constructEvent(options())
          : () => verifySignature(options());
      expect(outcome(run)).toBe(v.expected);
    });
    it(`${v.name}: ${v.expected} (WebhookVerifier, AsyncWebhookVerifier)`, async () => {
      const config = {secrets: v.secrets, toleranceSeconds: v.tolerance_seconds};
      const request = {payload: bodyOf(v), header: v.header, now: v.now};
      const sync = new WebhookVerifier(config);
      const web = new AsyncWebhookVerifier(config);
      const construct = v.operation === 'construct_event';
      expect(outcome(() => (construct ? sync.constructEvent(request) : sync.verify(request)))).toBe(
        v.expected,
      );
      expect(await outcomeAsync(() => (construct ? web.constructEvent(request) : web.verify(request)))).toBe(
        v.expected,
      );
    });
    it(`${v.name}: ${v.expected} (WebCrypto)`, async () => {
      const run =
        v.operation === 'construct_event'
          ? () => constructEventAsync(options())
          : () => verifySignatureAsync(options());
      expect(await outcomeAsync(run)).toBe(v.expected);
    });
  }
});
