// `svc logout`: forget the stored key for one address. Revoking happens on the account page, not here.
import {accountUrlFor} from '../client/client.js';
import type {FileCredentialStore, StoreKind} from '../auth/file-store.js';
import {KeychainStore} from '../auth/keychain-store.js';
import {defaultFileStore, envApiKey, resolveStoredApiUrl} from '../auth/resolve.js';

export interface LogoutOptions {
  env: NodeJS.ProcessEnv;
  apiUrl?: string;
  fileStore?: FileCredentialStore;
  keychainStore?: KeychainStore;
}

export interface LogoutResult {
  api_url: string;
  removed: boolean;
  store: StoreKind | null;
  account_url: string;
  /** SVC_API_KEY keeps working after a logout; worth saying. */
  env_key_set: boolean;
}

export async function logout(options: LogoutOptions): Promise<LogoutResult> {
  const fileStore = options.fileStore ?? defaultFileStore(options.env);
  const apiUrl = await resolveStoredApiUrl({env: options.env, flags: {apiUrl: options.apiUrl}, fileStore});
  const entry = await fileStore.get(apiUrl);
  if (entry?.store === 'keychain') {
    // Keychain first: if it cannot be reached, the pointer stays so the key is not orphaned unnoticed.
    await (options.keychainStore ?? new KeychainStore()).delete(apiUrl);
  }
  if (entry) await fileStore.delete(apiUrl);
  return {
    api_url: apiUrl,
    removed: entry !== undefined,
    store: entry?.store ?? null,
    account_url: accountUrlFor(apiUrl),
    env_key_set: envApiKey(options.env) !== undefined,
  };
}
