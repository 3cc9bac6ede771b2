import fc from 'fast-check';
import {describe, expect, it} from 'vitest';
import {newApiKeySecret} from '../../src/emulator/ids.js';
import {ApiUrlError, normalizeApiUrl} from '../../src/client/api-url.js';
import {toUserError} from '../../src/lib/error-mapper.js';

describe('normalizeApiUrl', () => {
  it.each([
    ['https://api.svc.invalid', 'https://api.svc.invalid'],
    ['https://api.svc.invalid/', 'https://api.svc.invalid'],
    ['HTTPS://API.SVC.INVALID:443/', 'https://api.svc.invalid'],
    ['https://example.com/base/', 'https://example.com/base'],
    ['http://localhost:4010', 'http://localhost:4010'],
    ['http://LOCALHOST:4010/', 'http://localhost:4010'],
    ['http://127.0.0.1:4010/', 'http://127.0.0.1:4010'],
    ['http://[::1]:4010', 'http://[::1]:4010'],
    ['  https://api.svc.invalid  ', 'https://api.svc.invalid'],
  ])('accepts %s as %s', (input, normal) => {
    expect(normalizeApiUrl(input)).toBe(normal);
  });

  it.each([
    ['http://api.svc.invalid', /plain http:\/\/ is refused for api\.svc\.invalid/],
    ['http://127.0.0.1.evil.example', /plain http/],
    ['http://localhost.evil.example', /plain http/],
    ['http://[::ffff:127.0.0.1]', /plain http/],
    ['http://10.0.0.1:4010', /plain http/],
    ['https://api.svc.invalid@evil.example', /user name or password/],
    ['https://user:pass@api.svc.invalid', /user name or password/],
    ['http://localhost@evil.example', /user name or password/],
    ['https://@evil.example', /user name or password/],
    ['https://api.svc.invalid/?next=x', /query string or fragment/],
    ['https://api.svc.invalid/#frag', /query string or fragment/],
    ['ftp://api.svc.invalid', /scheme "ftp"/],
    ['javascript:alert(1)', /scheme/],
    ['file:///etc/passwd', /scheme/],
    ['api.svc.invalid', /not an absolute URL/],
    ['https:api.svc.invalid', /must start with https:\/\//],
    ['https://api.svc.invalid\n.evil', /control characters/],
    ['https://api.svc.invalid\\@evil.example', /backslashes/],
    ['', /empty/],
    [`https://a.example/${'x'.repeat(3000)}`, /longer than/],
  ])('refuses %j with a clear reason', (input, reason) => {
    let error: unknown;
    try {
      normalizeApiUrl(input);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ApiUrlError);
    expect((error as Error).message).toMatch(reason);
    // The CLI shows a refused address as a usage error.
    expect(toUserError(error).exitCode).toBe(2);
  });

  it('is idempotent and only ever yields https or loopback http', () => {
    fc.assert(
      fc.property(fc.webUrl({withQueryParameters: false, withFragments: false}), (url) => {
        let normal: string;
        try {
          normal = normalizeApiUrl(url);
        } catch (err) {
          expect(err).toBeInstanceOf(ApiUrlError);
          return;
        }
        expect(normalizeApiUrl(normal)).toBe(normal);
        expect(normal).toMatch(/^(https:\/\/|http:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?(\/|$))/);
        expect(normal.endsWith('/')).toBe(false);
      }),
      {numRuns: 300},
    );
  });
});

describe('a key pasted where the address belongs', () => {
  it.each(['SECRET', 'http://SECRET', 'http://SECRET:4010/', 'https://x.example/?k=SECRET', 'ftp://SECRET'])(
    'is never repeated in the error (%s)',
    (template) => {
      const secret = newApiKeySecret();
      let message = '';
      try {
        normalizeApiUrl(template.replace('SECRET', secret));
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).not.toBe('');
      expect(message).not.toContain(secret);
    },
  );
});
