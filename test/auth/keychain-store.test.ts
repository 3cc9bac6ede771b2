import {describe, expect, it} from 'vitest';
import {type KeyringEntry, KeychainStore, KeychainUnavailableError} from '../../src/auth/keychain-store.js';
import {newApiKeySecret} from '../../src/emulator/ids.js';

/** An in-memory keyring standing in for the OS one (the store under test is ours, not the OS's). */
function memoryKeyring() {
  const items = new Map<string, string>();
  const calls: string[] = [];
  const factory = (service: string, account: string): KeyringEntry => ({
    async getPassword() {
      calls.push(`get ${service}/${account}`);
      return items.get(`${service}/${account}`) ?? null;
    },
    async setPassword(password) {
      calls.push(`set ${service}/${account}`);
      items.set(`${service}/${account}`, password);
    },
    async deleteCredential() {
      calls.push(`delete ${service}/${account}`);
      return items.delete(`${service}/${account}`);
    },
  });
  return {factory, items, calls};
}

const failing = (message: string): KeyringEntry => ({
  getPassword: () => Promise.reject(new Error(message)),
  setPassword: () => Promise.reject(new Error(message)),
  deleteCredential: () => Promise.reject(new Error(message)),
});

describe('the keychain store', () => {
  it('stores, reads and deletes under service "svc" and the API URL as account', async () => {
    const ring = memoryKeyring();
    const store = new KeychainStore({entry: ring.factory});
    const key = newApiKeySecret();
    await store.set('https://api.svc.invalid', key);
    expect(ring.items.get('svc/https://api.svc.invalid')).toBe(key);
    expect(await store.get('https://api.svc.invalid')).toBe(key);
    expect(await store.get('http://127.0.0.1:4010')).toBeNull();
    expect(await store.delete('https://api.svc.invalid')).toBe(true);
    expect(await store.get('https://api.svc.invalid')).toBeNull();
  });

  it('turns an access failure into a clear error that points to the file store', async () => {
    const store = new KeychainStore({entry: () => failing("Couldn't access platform storage: AccessDenied")});
    const err = await store.set('https://api.svc.invalid', newApiKeySecret()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KeychainUnavailableError);
    expect((err as Error).message).toBe(
      "the OS keychain is not available here (Couldn't access platform storage: AccessDenied); use the file store (default) instead",
    );
  });

  it('stops waiting for a keychain that never answers', async () => {
    let aborted = false;
    const hanging: KeyringEntry = {
      getPassword: (signal) =>
        new Promise(() => {
          signal?.addEventListener('abort', () => {
            aborted = true;
          });
        }),
      setPassword: () => new Promise(() => {}),
      deleteCredential: () => new Promise(() => {}),
    };
    const store = new KeychainStore({entry: () => hanging, timeoutMs: 30});
    await expect(store.get('https://api.svc.invalid')).rejects.toThrow(
      /not available here \(no answer within 0\.03 s\)/,
    );
    expect(aborted).toBe(true);
  });

  it('reports a keyring module that cannot load as unavailable', async () => {
    const store = new KeychainStore({
      entry: () => {
        throw new KeychainUnavailableError(
          'the optional @napi-rs/keyring module is not installed for this platform',
        );
      },
    });
    await expect(store.get('https://api.svc.invalid')).rejects.toThrow(
      /@napi-rs\/keyring module is not installed/,
    );
  });
});
