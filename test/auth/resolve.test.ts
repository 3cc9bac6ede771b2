import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterEach, beforeEach, describe, expect, it} from 'vitest';
import {FileCredentialStore} from '../../src/auth/file-store.js';
import {type KeyringEntry, KeychainStore} from '../../src/auth/keychain-store.js';
import {NoApiAddressError, NotLoggedInError, resolveCredentials} from '../../src/auth/resolve.js';
import {newApiKeySecret} from '../../src/emulator/ids.js';

const LOCAL = 'http://127.0.0.1:4010';
const OTHER = 'https://other.example';
// An address of the hosted service's shape; this build names no default, so it is only ever one given.
const HOSTED = 'https://api.svc.invalid';
const ENV_KEY = newApiKeySecret();
const DEFAULT_KEY = newApiKeySecret();
const LOCAL_KEY = newApiKeySecret();

let dir: string;
let fileStore: FileCredentialStore;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-resolve-'));
  fileStore = new FileCredentialStore({dir});
  const at = new Date().toISOString();
  await fileStore.set(HOSTED, {store: 'file', api_key: DEFAULT_KEY, stored_at: at});
  await fileStore.set(LOCAL, {store: 'file', api_key: LOCAL_KEY, stored_at: at});
});
afterEach(() => rmSync(dir, {recursive: true, force: true}));

type Row = [string, NodeJS.ProcessEnv, string | undefined, {url: string; key?: string; source?: string}];
// [story, env, --api-url, expected]
const matrix: Row[] = [
  [
    'nothing set: the address of the latest login, with the key stored for it',
    {},
    undefined,
    {url: LOCAL, key: LOCAL_KEY, source: 'file'},
  ],
  [
    'SVC_API_KEY wins over the stored key',
    {SVC_API_KEY: ENV_KEY, SVC_API_URL: LOCAL},
    undefined,
    {url: LOCAL, key: ENV_KEY, source: 'env'},
  ],
  [
    'SVC_API_URL picks the key stored for it',
    {SVC_API_URL: `${LOCAL}/`},
    undefined,
    {url: LOCAL, key: LOCAL_KEY, source: 'file'},
  ],
  ['--api-url picks the key stored for it', {}, LOCAL, {url: LOCAL, key: LOCAL_KEY, source: 'file'}],
  [
    '--api-url wins over SVC_API_URL',
    {SVC_API_URL: OTHER},
    LOCAL,
    {url: LOCAL, key: LOCAL_KEY, source: 'file'},
  ],
  [
    'env key goes to SVC_API_URL',
    {SVC_API_KEY: ENV_KEY, SVC_API_URL: OTHER},
    undefined,
    {url: OTHER, key: ENV_KEY, source: 'env'},
  ],
  ['an address with no stored key gets no key at all', {SVC_API_URL: OTHER}, undefined, {url: OTHER}],
  [
    'another spelling of a host is another address',
    {},
    'http://localhost:4010',
    {url: 'http://localhost:4010'},
  ],
  [
    'empty SVC_API_KEY counts as unset',
    {SVC_API_KEY: ''},
    undefined,
    {url: LOCAL, key: LOCAL_KEY, source: 'file'},
  ],
];

describe('resolveCredentials precedence', () => {
  for (const [story, env, apiUrl, expected] of matrix) {
    it(story, async () => {
      const result = resolveCredentials({env, flags: {apiUrl}, fileStore}).catch((e: unknown) => e);
      if (expected.key) {
        expect(await result).toEqual({apiUrl: expected.url, apiKey: expected.key, source: expected.source});
      } else {
        const err = await result;
        expect(err).toBeInstanceOf(NotLoggedInError);
        expect((err as Error).message).toBe(
          `not logged in to ${expected.url}; run \`svc login --api-url ${expected.url}\` or set SVC_API_KEY`,
        );
        expect((err as NotLoggedInError).exitCode).toBe(4);
      }
    });
  }

  it('sends nothing anywhere once the latest login is forgotten, and names the three ways to give an address', async () => {
    await fileStore.delete(LOCAL);
    const err = await resolveCredentials({env: {}, fileStore}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NoApiAddressError);
    expect((err as NoApiAddressError).exitCode).toBe(2);
    const ways = (err as NoApiAddressError).suggestions.join('\n');
    for (const way of ['svc login --api-url URL', 'SVC_API_URL=URL', '--api-url URL'])
      expect(ways).toContain(way);
  });

  it('sends SVC_API_KEY nowhere when no address is given: this build has no default to guess', async () => {
    const err = await resolveCredentials({env: {SVC_API_KEY: ENV_KEY}, fileStore}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NoApiAddressError);
    expect(String((err as Error).message)).not.toContain(ENV_KEY);
  });

  it('makes a later login the current address', async () => {
    await fileStore.set(HOSTED, {
      store: 'file',
      api_key: DEFAULT_KEY,
      stored_at: new Date().toISOString(),
    });
    expect((await resolveCredentials({env: {}, fileStore})).apiUrl).toBe(HOSTED);
  });

  it('refuses a malformed SVC_API_KEY without repeating it', async () => {
    const err = (await resolveCredentials({
      env: {SVC_API_KEY: 'sk_live_notours', SVC_API_URL: LOCAL},
      fileStore,
    }).catch((e: unknown) => e)) as Error;
    expect(err.message).toMatch(/SVC_API_KEY does not look like an svc API key/);
    expect(err.message).not.toContain('sk_live_notours');
  });

  it('reads a keychain login from the keychain, and only for its URL', async () => {
    const key = newApiKeySecret();
    const seen: string[] = [];
    const entry = (_service: string, account: string): KeyringEntry => ({
      getPassword: async () => {
        seen.push(account);
        return account === 'https://kc.example' ? key : null;
      },
      setPassword: async () => {},
      deleteCredential: async () => true,
    });
    await fileStore.set('https://kc.example', {store: 'keychain', stored_at: new Date().toISOString()});
    const keychain = new KeychainStore({entry});
    expect(
      await resolveCredentials({env: {}, flags: {apiUrl: 'https://kc.example'}, fileStore, keychain}),
    ).toEqual({
      apiUrl: 'https://kc.example',
      apiKey: key,
      source: 'keychain',
    });
    // A file login never touches the keychain.
    await resolveCredentials({env: {}, flags: {apiUrl: LOCAL}, fileStore, keychain});
    expect(seen).toEqual(['https://kc.example']);
    // A pointer whose keychain item was removed by hand says so.
    await fileStore.set('https://gone.example', {store: 'keychain', stored_at: new Date().toISOString()});
    await expect(
      resolveCredentials({env: {}, flags: {apiUrl: 'https://gone.example'}, fileStore, keychain}),
    ).rejects.toThrow(
      'the key for https://gone.example is no longer in the OS keychain; run `svc login --api-url https://gone.example --keychain` again',
    );
  });
});
