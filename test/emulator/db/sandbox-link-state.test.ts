// The one rule of a sandbox link's state, as a pure function: its key first (revoked or expired: `revoked`, for
// good), then its sandbox (not running, or past its expiry even before the sweep has moved it: `sandbox_stopped`).
import {describe, expect, it} from 'vitest';
import {type LinkView, linkState} from '../../../src/emulator/db/sandbox-links.js';

const NOW = new Date('2031-05-01T12:00:00.000Z');
const before = new Date(NOW.getTime() - 1);
const after = new Date(NOW.getTime() + 1);

function link(over: {key?: Partial<LinkView['key']>; sandbox?: Partial<LinkView['sandbox']>} = {}): LinkView {
  return {
    id: 'lnk_000000000000000000000000',
    orgId: 'org_000000000000000000000000',
    sandboxId: 'sbx_000000000000000000000000',
    keyId: 'key_000000000000000000000000',
    kind: 'port',
    port: 3000,
    createdAt: before,
    tokenHash: '0'.repeat(64),
    key: {revokedAt: null, expiresAt: null, ...over.key},
    sandbox: {name: 'dev', status: 'running', expiresAt: null, ...over.sandbox},
  };
}

describe('linkState', () => {
  it.each([
    ['an active key and a running sandbox', link(), {status: 'active'}],
    ['a key expiring later', link({key: {expiresAt: after}}), {status: 'active'}],
    ['a sandbox expiring later', link({sandbox: {expiresAt: after}}), {status: 'active'}],
    ['a revoked key', link({key: {revokedAt: before}}), {status: 'revoked', refusal: 'key_revoked'}],
    ['a key expiring now', link({key: {expiresAt: NOW}}), {status: 'revoked', refusal: 'key_expired'}],
    [
      'a revoked key on a stopped sandbox',
      link({key: {revokedAt: before}, sandbox: {status: 'stopped'}}),
      {status: 'revoked', refusal: 'key_revoked'},
    ],
    ...(['stopped', 'standby', 'error', 'deleting'] as const).map(
      (status) =>
        [
          `a ${status} sandbox`,
          link({sandbox: {status}}),
          {status: 'sandbox_stopped', refusal: 'sandbox_not_running'},
        ] as const,
    ),
    [
      'a running sandbox whose expiry passed before the sweep moved it',
      link({sandbox: {expiresAt: NOW}}),
      {status: 'sandbox_stopped', refusal: 'sandbox_not_running'},
    ],
  ])('%s', (_what, view, expected) => {
    expect(linkState(view, NOW)).toEqual(expected);
  });
});
