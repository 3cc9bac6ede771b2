// `svc logout`: forget the stored key for one address. Revoking happens on the account page, not here.
import {accountUrlFor} from '@svc/client';
import type {FileCredentialStore, StoreKind} from '../auth/file-store.js';
import {KeychainStore} from '../auth/keychain-store.js';
import {
  defaultFileStore,
  envApiKey,
  NoApiAddressError,
  resolveApiUrl,
  resolveStoredApiUrl,
} from '../auth/resolve.js';
import {UserError} from '../lib/errors.js';

export interface LogoutOptions {
  env: NodeJS.ProcessEnv;
  apiUrl?: string;
  fileStore?: FileCredentialStore;
  keychainStore?: KeychainStore;
}

export interface LogoutResult {
  /** null only when a damaged credentials file was removed and no address was given or can be known. */
  api_url: string | null;
  removed: boolean;
  store: StoreKind | null;
  account_url: string | null;
  /** SVC_API_KEY keeps working after a logout; worth saying. */
  env_key_set: boolean;
  /** The credentials path held something unreadable (a damaged file, a folder), now removed with every login in it. */
  repaired?: {path: string; was: 'file' | 'folder'};
}

export async function logout(options: LogoutOptions): Promise<LogoutResult> {
  const fileStore = options.fileStore ?? defaultFileStore(options.env);
  let apiUrl: string;
  let entry: Awaited<ReturnType<FileCredentialStore['get']>>;
  try {
    apiUrl = await resolveStoredApiUrl({env: options.env, flags: {apiUrl: options.apiUrl}, fileStore});
    entry = await fileStore.get(apiUrl);
  } catch (err) {
    // No address given and no login stored: there is nothing to forget.
    if (err instanceof NoApiAddressError) return nothingStored(options);
    if (!(err instanceof UserError) || err.code !== 'credentials_damaged') throw err;
    // Nothing in it can be read, so nothing in it can be used: removing it is the only way forward.
    return repairDamaged(options, fileStore);
  }
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

function nothingStored(options: LogoutOptions): LogoutResult {
  return {
    api_url: null,
    removed: false,
    store: null,
    account_url: null,
    env_key_set: envApiKey(options.env) !== undefined,
  };
}

async function repairDamaged(options: LogoutOptions, fileStore: FileCredentialStore): Promise<LogoutResult> {
  const was = await fileStore.removeDamaged();
  if (was === undefined) {
    // The config dir itself is the problem (a file where a folder belongs): not svc's to delete.
    throw new UserError(`the config dir ${fileStore.dir} is not a folder`, {
      code: 'credentials_damaged',
      suggestions: ['Move that file away, or point SVC_CONFIG_DIR at a folder of your own'],
    });
  }
  // The latest login was in the file just removed: with no address given, there is none to name.
  let apiUrl: string | null = null;
  try {
    apiUrl = resolveApiUrl({env: options.env, flags: {apiUrl: options.apiUrl}});
  } catch (err) {
    if (!(err instanceof NoApiAddressError)) throw err;
  }
  return {
    api_url: apiUrl,
    removed: true,
    store: null,
    account_url: apiUrl === null ? null : accountUrlFor(apiUrl),
    env_key_set: envApiKey(options.env) !== undefined,
    repaired: {path: fileStore.path, was},
  };
}
