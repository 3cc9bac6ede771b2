// Each failure tells the developer what to fix, and none ever repeats a secret.
import {readFileSync} from 'node:fs';
import {describe, expect, it} from 'vitest';
import {
  AsyncWebhookVerifier,
  constructEvent,
  signPayload,
  verifySignature,
  verifySignatureAsync,
  type VerifySignatureOptions,
  WebhookVerificationError,
  WebhookVerifier,
} from '../../src/webhooks/index.js';

const SECRET = 'whsec_c2VjcmV0LWZvci1tZXNzYWdlLXRlc3RzLTAxMjM0NTY3';
const T = 1767225600;
const BODY = JSON.stringify({
  id: 'evt_4Vx9QmT2kLp8RsWn3YbZc7Hd',
  type: 'sandbox.ready',
  created_at: '2026-01-01T00:00:00.000Z',
  org_id: 'org_7Gh2Jk4Lm6Np8Qr0St2Uv4Wx',
  data: {
    sandbox: {id: 'sbx_1Ab3Cd5Ef7Gh9Ij1Kl3Mn5Op', name: 'web', status: 'running', desired_state: 'running'},
  },
});
const HEADER = signPayload({secret: SECRET, payload: BODY, timestamp: T});

/** Runs both verifiers; they must fail alike. Returns the sync error. */
async function failure(options: VerifySignatureOptions): Promise<WebhookVerificationError> {
  let sync: unknown;
  try {
    verifySignature(options);
  } catch (err) {
    sync = err;
  }
  const web = await verifySignatureAsync(options).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(sync).toBeInstanceOf(WebhookVerificationError);
  expect(web).toBeInstanceOf(WebhookVerificationError);
  expect((web as Error).message).toBe((sync as Error).message);
  return sync as WebhookVerificationError;
}

describe('helpful messages', () => {
  it('a parsed object instead of the raw body: verify the raw body, before any JSON parser', async () => {
    const err = await failure({secret: SECRET, payload: JSON.parse(BODY), header: HEADER, now: T});
    expect(err.reason).toBe('invalid_payload');
    expect(err.message).toMatch(/parsed object/);
    expect(err.message).toMatch(/raw body, before any JSON parser/);
  });

  it('a payload of the wrong type names the type it got', async () => {
    const err = await failure({secret: SECRET, payload: 42 as unknown as string, header: HEADER, now: T});
    expect(err.reason).toBe('invalid_payload');
    expect(err.message).toMatch(/not number/);
  });

  it('whitespace around the secret: says so, and that the secret is used byte for byte', async () => {
    const err = await failure({secret: `${SECRET}\n`, payload: BODY, header: HEADER, now: T});
    expect(err.reason).toBe('signature_mismatch');
    expect(err.message).toMatch(/whitespace at its start or end/);
    expect(err.message).not.toContain(SECRET);
  });

  it('an API key where the signing secret belongs: names the mistake and the right secret', async () => {
    const apiKey = 'svc_0123456789ABCDEFGHIJabcdefghij0123456789';
    const err = await failure({secret: apiKey, payload: BODY, header: HEADER, now: T});
    expect(err.reason).toBe('signature_mismatch');
    expect(err.message).toMatch(/API key, not a signing secret/);
    expect(err.message).toMatch(/whsec_/);
    expect(err.message).not.toContain(apiKey);
    expect(err.message).not.toContain('0123456789ABCDEF');
  });

  it('a secret without the whsec_ prefix: the prefix is part of the key', async () => {
    const err = await failure({secret: SECRET.slice(6), payload: BODY, header: HEADER, now: T});
    expect(err.message).toMatch(/does not start with "whsec_"/);
    expect(err.message).not.toContain(SECRET.slice(6));
  });

  it('during rotation, points at the secret that looks wrong and counts the secrets', async () => {
    const err = await failure({
      secrets: ['whsec_other', ` ${SECRET}`],
      payload: BODY,
      header: HEADER,
      now: T,
    });
    expect(err.message).toMatch(/any of the 2 secrets/);
    expect(err.message).toMatch(/Secret #2 has whitespace/);
  });

  it('clock skew into the past: how many seconds, which direction, and the tolerance', async () => {
    const err = await failure({secret: SECRET, payload: BODY, header: HEADER, now: T + 412});
    expect(err.reason).toBe('timestamp_outside_tolerance');
    expect(err.message).toMatch(/412 seconds in the past/);
    expect(err.message).toMatch(/tolerance of 300 seconds/);
    expect(err.ageSeconds).toBe(412);
    expect(err.timestamp).toBe(T);
  });

  it("clock skew into the future: says this machine's clock is behind", async () => {
    const err = await failure({
      secret: SECRET,
      payload: BODY,
      header: HEADER,
      now: T - 1000,
      toleranceSeconds: 60,
    });
    expect(err.message).toMatch(/1000 seconds in the future/);
    expect(err.message).toMatch(/clock is behind/);
    expect(err.message).toMatch(/tolerance of 60 seconds/);
    expect(err.ageSeconds).toBe(-1000);
  });

  it('several Svc-Signature headers in an array: asks for one', async () => {
    const err = await failure({secret: SECRET, payload: BODY, header: [HEADER, HEADER], now: T});
    expect(err.reason).toBe('malformed_header');
    expect(err.message).toMatch(/2 Svc-Signature headers/);
  });

  it('two Svc-Signature headers joined by a proxy: says that is what it looks like', async () => {
    const err = await failure({secret: SECRET, payload: BODY, header: `${HEADER}, ${HEADER}`, now: T});
    expect(err.reason).toBe('malformed_header');
    expect(err.message).toMatch(/two Svc-Signature headers joined/);
  });

  it('a v1 of the wrong length: says how long it was', async () => {
    const err = await failure({secret: SECRET, payload: BODY, header: `t=${T},v1=abc`, now: T});
    expect(err.reason).toBe('no_signature');
    expect(err.message).toMatch(/not 64 lowercase hex characters \(the first has 3\)/);
  });

  it('a missing header names the header to read', async () => {
    const err = await failure({secret: SECRET, payload: BODY, header: undefined, now: T});
    expect(err.reason).toBe('missing_header');
    expect(err.message).toMatch(/svc-signature/);
  });

  it('a valid signature over something that is not an event: says which field is wrong', () => {
    const body = BODY.replace('"sandbox.ready"', '42');
    const header = signPayload({secret: SECRET, payload: body, timestamp: T});
    let err: unknown;
    try {
      constructEvent({secret: SECRET, payload: body, header, now: T});
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(WebhookVerificationError);
    expect((err as WebhookVerificationError).reason).toBe('invalid_payload');
    expect((err as Error).message).toMatch(/"type" must be a string naming the event type \(sandbox.ready/);
  });

  it('an event of a type this version does not list is an event: a later service may add types', () => {
    const body = BODY.replace('"sandbox.ready"', '"sandbox.resized"');
    const header = signPayload({secret: SECRET, payload: body, timestamp: T});
    expect(constructEvent({secret: SECRET, payload: body, header, now: T}).type).toBe('sandbox.resized');
  });

  it('no failure in the shared vectors ever includes a secret in its message', async () => {
    const {vectors} = JSON.parse(
      readFileSync(new URL('../../fixtures/webhooks/vectors.json', import.meta.url), 'utf8'),
    ) as {vectors: {secrets: string[]; header: string; body: string; body_encoding: string; now: number}[]};
    let failures = 0;
    for (const v of vectors) {
      const payload = v.body_encoding === 'base64' ? Buffer.from(v.body, 'base64') : v.body;
      try {
        constructEvent({secrets: v.secrets, payload, header: v.header, now: v.now});
      } catch (err) {
        failures++;
        for (const s of v.secrets) expect((err as Error).message).not.toContain(s.slice(6, 20));
      }
    }
    expect(failures).toBeGreaterThan(20);
  });
});

describe('caller mistakes are TypeErrors, not verification failures', () => {
  it('no secret, both secret and secrets, empty secrets, negative tolerance, invalid now', () => {
    const base = {payload: BODY, header: HEADER, now: T};
    expect(() => verifySignature({...base})).toThrow(TypeError);
    expect(() => verifySignature({...base, secret: ''})).toThrow(TypeError);
    expect(() => verifySignature({...base, secret: SECRET, secrets: [SECRET]})).toThrow(TypeError);
    expect(() => verifySignature({...base, secrets: []})).toThrow(TypeError);
    expect(() => verifySignature({...base, secret: SECRET, toleranceSeconds: -1})).toThrow(TypeError);
    expect(() => verifySignature({...base, secret: SECRET, now: new Date('nope')})).toThrow(TypeError);
  });

  it('accepts now as a Date and ignores its milliseconds at the boundary', () => {
    const now = new Date((T + 300) * 1000 + 999);
    expect(verifySignature({secret: SECRET, payload: BODY, header: HEADER, now}).timestamp).toBe(T);
  });
});

describe('reusable verifiers', () => {
  it('check their configuration once, at construction', () => {
    expect(() => new WebhookVerifier({})).toThrow(TypeError);
    expect(() => new AsyncWebhookVerifier({secrets: []})).toThrow(TypeError);
    expect(() => new WebhookVerifier({secret: SECRET, toleranceSeconds: Number.NaN})).toThrow(TypeError);
  });

  it('report which secret matched during a rotation, sync and async alike', async () => {
    const config = {secrets: ['whsec_old', SECRET]};
    const request = {payload: BODY, header: HEADER, now: T};
    expect(new WebhookVerifier(config).verify(request)).toEqual({timestamp: T, secretIndex: 1});
    const web = new AsyncWebhookVerifier(config);
    expect(await web.verify(request)).toEqual({timestamp: T, secretIndex: 1});
    // Second use: the imported keys are reused, the answer is the same.
    expect((await web.constructEvent(request)).type).toBe('sandbox.ready');
  });
});
