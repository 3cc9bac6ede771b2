// `--json` output as svc writes it: no control or invisible character raw, and the very same value once parsed;
// and the request log's redaction of anything shaped like a secret.
import fc from 'fast-check';
import {describe, expect, it} from 'vitest';
import {jsonText, redactSecrets} from '../../src/definitions.js';

const UNSAFE_RAW = /[\u0080-\u009f\u007f\p{Cf}\u2028\u2029]/u;

describe('jsonText', () => {
  it('is the same JSON value when parsed, with no control or invisible character raw', () => {
    fc.assert(
      fc.property(fc.jsonValue({stringUnit: 'binary'}), fc.constantFrom(undefined, 2), (value, space) => {
        const text = jsonText(value, space);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
        expect(text).not.toMatch(UNSAFE_RAW);
      }),
    );
  });

  it('writes C1 controls, bidi overrides, zero-width and tag characters as \\u escapes', () => {
    expect(jsonText({m: '\u009b2J\u202eabc\u200d\u{e0041}'})).toBe(
      '{"m":"\\u009b2J\\u202eabc\\u200d\\udb40\\udc41"}',
    );
  });
});

describe('redactSecrets', () => {
  it('redacts key secrets, signing secrets (plain or percent-encoded) and link tokens, and keeps ids', () => {
    const key = `svc_${'k'.repeat(40)}`;
    const signing = `whsec_${Buffer.alloc(32, 255).toString('base64')}`;
    const token = Buffer.alloc(32, 251).toString('base64url');
    const id = `key_${'a'.repeat(24)}`;
    expect(redactSecrets(`/v1/${key}/x`)).toBe('/v1/[redacted]/x');
    expect(redactSecrets(`/v1/${signing}/x`)).toBe('/v1/[redacted]/x');
    expect(redactSecrets(`/v1/${encodeURIComponent(signing)}/x`)).toBe('/v1/[redacted]/x');
    expect(redactSecrets(`/_links/${token}/`)).toBe('/_links/[redacted]/');
    expect(redactSecrets(`/_emulator/keys/${id}/revoke`)).toBe(`/_emulator/keys/${id}/revoke`);
  });
});
