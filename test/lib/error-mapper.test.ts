// The CLI's one error mapper: every kind of failure a command meets, as a person and a script see it.
import {Errors} from '@oclif/core';
import {describe, expect, it} from 'vitest';
import {EmulatorControlError} from '../../src/client/emulator-control.js';
import {ApiUrlError, normalizeApiUrl} from '../../src/client/api-url.js';
import {
  ApiError,
  ForbiddenError,
  NetworkError,
  NotFoundError,
  RateLimitedError,
  UnauthorizedError,
  VaultUnavailableError,
} from '../../src/client/errors.js';
import {debugEnabled, debugReport, toUserError} from '../../src/lib/error-mapper.js';
import {UserError, usageError} from '../../src/lib/errors.js';
import {verifySignature} from '../../src/webhooks/index.js';

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}

describe('toUserError', () => {
  const cases: {name: string; error: unknown; code: string; exitCode: number; next?: RegExp}[] = [
    {
      name: 'a 401 from the API: exit 4, log in again',
      error: new UnauthorizedError(),
      code: 'unauthorized',
      exitCode: 4,
      next: /svc login/,
    },
    {
      name: 'a 403 from the API: exit 5, the account page',
      error: new ForbiddenError('https://example.test/account'),
      code: 'forbidden',
      exitCode: 5,
      next: /https:\/\/example\.test\/account/,
    },
    {name: 'a 404 from the API: exit 1', error: new NotFoundError('gone'), code: 'not_found', exitCode: 1},
    {
      name: 'rate limited by the service: a lockout, good keys included; wait',
      error: new RateLimitedError(3, 'https://api.svc.invalid/v1/org'),
      code: 'rate_limited',
      exitCode: 1,
      next: /good ones too: wait/,
    },
    {
      name: 'rate limited by an emulator (loopback): the lockout can be ended',
      error: new RateLimitedError(3, 'http://127.0.0.1:4010/v1/org'),
      code: 'rate_limited',
      exitCode: 1,
      next: /svc emulator limiter reset/,
    },
    {
      name: 'no vault key',
      error: new VaultUnavailableError(),
      code: 'vault_unavailable',
      exitCode: 1,
      next: /--no-vault-key/,
    },
    {
      name: 'an unreachable emulator on loopback',
      error: new NetworkError('http://127.0.0.1:4010/v1/org', 'connection refused'),
      code: 'network_error',
      exitCode: 1,
      next: /svc emulator start/,
    },
    {
      name: 'an unreachable remote API',
      error: new NetworkError('https://api.svc.invalid/v1/org', 'the host name could not be resolved'),
      code: 'network_error',
      exitCode: 1,
      next: /network connection/,
    },
    {
      name: 'a server error',
      error: new ApiError('the API answered 502', {code: 'server_error', status: 502}),
      code: 'server_error',
      exitCode: 1,
      next: /try again/,
    },
    {
      name: 'a refused API address: a usage error',
      error: thrown(() => normalizeApiUrl('http://api.svc.invalid')),
      code: 'invalid_api_url',
      exitCode: 2,
      next: /--api-url or SVC_API_URL/,
    },
    {
      name: 'the emulator control surface refusing the admin token',
      error: new EmulatorControlError('bad token', 401, 'unauthorized'),
      code: 'unauthorized',
      exitCode: 4,
    },
    {
      name: 'the emulator control surface refusing input',
      error: new EmulatorControlError('name is required', 400, 'invalid_request'),
      code: 'invalid_request',
      exitCode: 1,
    },
    {
      name: 'a webhook that fails verification: its reason is the code',
      error: thrown(() =>
        verifySignature({payload: '{}', header: 't=1,v1=00', secret: 'whsec_x', now: new Date(0)}),
      ),
      code: 'no_signature',
      exitCode: 1,
    },
    {
      name: 'an oclif parse error: usage',
      error: new Errors.CLIError('Nonexistent flag: --nope', {exit: 2}),
      code: 'usage',
      exitCode: 2,
    },
    {
      name: 'a file svc cannot write (the credentials file, a data dir)',
      error: Object.assign(new Error("EACCES: permission denied, open '/x/credentials.json'"), {
        code: 'EACCES',
        syscall: 'open',
        path: '/x/credentials.json',
      }),
      code: 'system_error',
      exitCode: 1,
      next: /\/x\/credentials\.json/,
    },
    {
      name: 'a port in use',
      error: Object.assign(new Error('listen EADDRINUSE: address already in use 127.0.0.1:4010'), {
        code: 'EADDRINUSE',
        syscall: 'listen',
      }),
      code: 'system_error',
      exitCode: 1,
      next: /--port/,
    },
    {
      name: 'anything unexpected: an internal error with the way to see where',
      error: new TypeError("Cannot read properties of undefined (reading 'id')"),
      code: 'internal',
      exitCode: 1,
      next: /--debug/,
    },
    {name: 'even a thrown string', error: 'boom', code: 'internal', exitCode: 1, next: /--debug/},
  ];

  for (const c of cases) {
    it(c.name, () => {
      const shown = toUserError(c.error);
      expect(shown).toBeInstanceOf(UserError);
      expect(shown.code).toBe(c.code);
      expect(shown.exitCode).toBe(c.exitCode);
      expect(shown.message.length).toBeGreaterThan(0);
      if (c.next) expect(shown.suggestions.join('\n')).toMatch(c.next);
    });
  }

  it("keeps the CLI's own errors as they are", () => {
    const own = usageError('--watch is for people', ['poll without it']);
    expect(toUserError(own)).toBe(own);
  });

  it('says an unexpected error is internal and keeps its message', () => {
    const shown = toUserError(new RangeError('index 7 out of range'));
    expect(shown.message).toBe('internal error: index 7 out of range');
  });

  it('shows the library errors unchanged in their message, and the library errors carry no exit code', () => {
    const err = new UnauthorizedError();
    expect(err).not.toHaveProperty('exitCode');
    expect(toUserError(err).message).toBe(err.message);
    expect(thrown(() => normalizeApiUrl(''))).toBeInstanceOf(ApiUrlError);
  });
});

describe("a command's own next steps for an error code", () => {
  it('follow the mapper’s steps, with the message, code and exit code left as mapped', () => {
    const err = new EmulatorControlError('this org already has 25 active keys', 409, 'conflict');
    const plain = toUserError(err);
    const shown = toUserError(err, {conflict: ['Revoke a key you no longer use'], not_found: ['unused']});
    expect(shown.message).toBe(plain.message);
    expect(shown.message).toBe(err.message);
    expect(shown.code).toBe('conflict');
    expect(shown.exitCode).toBe(plain.exitCode);
    expect(shown.suggestions).toEqual([...plain.suggestions, 'Revoke a key you no longer use']);
    expect(shown.cause).toBe(err);
  });

  it('leave an error of another code as the mapper alone makes it', () => {
    const err = new UnauthorizedError();
    expect(toUserError(err, {conflict: ['Revoke a key']})).toEqual(toUserError(err));
    const own = usageError('--watch is for people', ['poll without it']);
    expect(toUserError(own, {conflict: ['x']})).toBe(own);
  });
});

describe('--debug', () => {
  it('is on with the flag before `--`, or with SVC_DEBUG', () => {
    expect(debugEnabled(['org', '--debug'], {})).toBe(true);
    expect(debugEnabled(['org'], {SVC_DEBUG: '1'})).toBe(true);
    expect(debugEnabled(['org'], {SVC_DEBUG: '0'})).toBe(false);
    expect(debugEnabled(['org'], {})).toBe(false);
    expect(debugEnabled(['emulator', 'exec', '--', 'tool', '--debug'], {})).toBe(false);
  });

  it('reports the stack of the error and of its cause', () => {
    const cause = new Error('socket hang up');
    const report = debugReport(new NetworkError('https://api.svc.invalid/v1/org', 'reset', cause));
    expect(report).toMatch(/^NetworkError: could not reach/);
    expect(report).toMatch(/\n\s+at /);
    expect(report).toContain('Caused by: Error: socket hang up');
  });
});
