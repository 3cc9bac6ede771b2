import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterEach, beforeEach, describe, expect, it} from 'vitest';
import {DEFAULT_API_URL} from '../../src/client/defaults.js';
import {FileCredentialStore} from '../../src/auth/file-store.js';
import {type KeyringEntry, KeychainStore} from '../../src/auth/keychain-store.js';
import {NotLoggedInError, resolveCredentials} from '../../src/auth/resolve.js';
import {newApiKeySecret} from '../../src/emulator/ids.js';

const LOCAL = 'http://127.0.0.1:4010';
const OTHER = 'https://other.example';
const ENV_KEY = newApiKeySecret();
const DEFAULT_KEY = newApiKeySecret();
const LOCAL_KEY = newApiKeySecret();

let dir: string;
let fileStore: FileCredentialStore;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-resolve-'));
  fileStore = new FileCredentialStore({dir});
  const at = new Date().toISOString();
  await fileStore.set(DEFAULT_API_URL, {store: 'file', api_key: DEFAULT_KEY, stored_at: at});
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
    {SVC_API_KEY: ENV_KEY},
    undefined,
    {url: DEFAULT_API_URL, key: ENV_KEY, source: 'env'},
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

  it('falls back on the default address once the latest login is forgotten', async () => {
    await fileStore.delete(LOCAL);
    expect(await resolveCredentials({env: {}, fileStore})).toEqual({
      apiUrl: DEFAULT_API_URL,
      apiKey: DEFAULT_KEY,
      source: 'file',
    });
  });

  it('makes a later login the current address', async () => {
    await fileStore.set(DEFAULT_API_URL, {
      store: 'file',
      api_key: DEFAULT_KEY,
      stored_at: new Date().toISOString(),
    });
    expect((await resolveCredentials({env: {}, fileStore})).apiUrl).toBe(DEFAULT_API_URL);
  });

  it('refuses a malformed SVC_API_KEY without repeating it', async () => {
    const err = (await resolveCredentials({env: {SVC_API_KEY: 'sk_live_notours'}, fileStore}).catch(
      (e: unknown) => e,
    )) as Error;
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
