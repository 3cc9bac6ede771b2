// The login and logout services with an in-memory keyring, against the msw mock of the API.
import {mkdtempSync, readFileSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {setupServer} from 'msw/node';
import {afterAll, afterEach, beforeAll, beforeEach, describe, expect, it} from 'vitest';
import {FileCredentialStore} from '../../src/auth/file-store.js';
import {type KeyringEntry, KeychainStore} from '../../src/auth/keychain-store.js';
import {resolveCredentials} from '../../src/auth/resolve.js';
import {login} from '../../src/services/login.js';
import {logout} from '../../src/services/logout.js';
import {MockApi} from '../helpers/msw-handlers.js';

const API = 'https://api.svc.test';
const mock = new MockApi();
const server = setupServer(...mock.handlers());
beforeAll(() => server.listen({onUnhandledRequest: 'error'}));
afterAll(() => server.close());

let dir: string;
let fileStore: FileCredentialStore;
let items: Map<string, string>;
let keychainStore: KeychainStore;
let broken: boolean;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-login-'));
  fileStore = new FileCredentialStore({dir});
  items = new Map();
  broken = false;
  const fail = () => Promise.reject(new Error("Couldn't access platform storage: AccessDenied"));
  const entry = (_service: string, account: string): KeyringEntry => ({
    getPassword: async () => (broken ? fail() : (items.get(account) ?? null)),
    setPassword: async (password) => (broken ? fail() : void items.set(account, password)),
    deleteCredential: async () => (broken ? fail() : items.delete(account)),
  });
  keychainStore = new KeychainStore({entry});
});
afterEach(() => rmSync(dir, {recursive: true, force: true}));

const run = (secret: string, keychain: boolean) =>
  login({
    env: {},
    apiUrl: API,
    keychain,
    readKey: async () => secret,
    fileStore,
    keychainStore,
    client: {retries: 0},
  });

describe('login with --keychain', () => {
  it('puts the key in the keychain and only a pointer in the file', async () => {
    const {secret} = mock.mintKey({name: 'kc'});
    const result = await run(secret, true);
    expect(result).toMatchObject({store: 'keychain', location: 'the OS keychain', api_url: API});
    expect(items.get(API)).toBe(secret);
    expect(readFileSync(fileStore.path, 'utf8')).not.toContain(secret);
    expect(
      await resolveCredentials({env: {}, flags: {apiUrl: API}, fileStore, keychain: keychainStore}),
    ).toEqual({
      apiKey: secret,
      apiUrl: API,
      source: 'keychain',
    });
  });

  it('writes nothing anywhere when the keychain refuses', async () => {
    const {secret} = mock.mintKey({name: 'kc-broken'});
    broken = true;
    await expect(run(secret, true)).rejects.toThrow(
      /the OS keychain is not available here \(.*AccessDenied\)/,
    );
    expect(await fileStore.list()).toEqual({});
  });

  it('moving back to the file store removes the keychain item; logout removes both', async () => {
    const {secret} = mock.mintKey({name: 'kc-move'});
    await run(secret, true);
    await run(secret, false);
    expect(items.has(API)).toBe(false);
    expect((await fileStore.get(API))?.api_key).toBe(secret);

    await run(secret, true);
    const out = await logout({env: {}, apiUrl: API, fileStore, keychainStore});
    expect(out).toMatchObject({removed: true, store: 'keychain', account_url: `${API}/account`});
    expect(items.size).toBe(0);
    expect(await fileStore.list()).toEqual({});
  });

  it('logout keeps the pointer when the keychain cannot be reached, so the key is not orphaned silently', async () => {
    const {secret} = mock.mintKey({name: 'kc-stuck'});
    await run(secret, true);
    broken = true;
    await expect(logout({env: {}, apiUrl: API, fileStore, keychainStore})).rejects.toThrow(
      /not available here/,
    );
    expect(await fileStore.get(API)).toMatchObject({store: 'keychain'});
  });
});
