// `svc auth status`: which key is in use (where it came from, its prefix), for which address and org.
import type {ClientOptions} from '../../client/client.js';
import type {FileCredentialStore} from '../../auth/file-store.js';
import type {KeychainStore} from '../../auth/keychain-store.js';
import {type CredentialSource, defaultFileStore} from '../../auth/resolve.js';
import {openSession} from '../../auth/session.js';

export interface AuthStatusOptions {
  env: NodeJS.ProcessEnv;
  apiUrl?: string;
  fileStore?: FileCredentialStore;
  keychainStore?: KeychainStore;
  client?: Omit<ClientOptions, 'apiUrl' | 'apiKey'>;
  warn?: (message: string) => void;
}

export interface AuthStatus {
  source: CredentialSource;
  api_url: string;
  /** The first 8 characters only (`svc_` + 4): enough to match the account page, useless to an attacker. */
  key_prefix: string;
  org: {id: string; name: string};
  /** Other addresses with a stored key. */
  other_logins: string[];
}

export async function authStatus(options: AuthStatusOptions): Promise<AuthStatus> {
  const fileStore = options.fileStore ?? defaultFileStore(options.env, options.warn);
  const {client, credentials} = await openSession({
    env: options.env,
    flags: {apiUrl: options.apiUrl},
    fileStore,
    keychain: options.keychainStore,
    client: options.client,
  });
  const org = await client.getOrg();
  const stored = await fileStore.list();
  return {
    source: credentials.source,
    api_url: credentials.apiUrl,
    key_prefix: credentials.apiKey.slice(0, 8),
    org: {id: org.id, name: org.name},
    other_logins: Object.keys(stored).filter((url) => url !== credentials.apiUrl),
  };
}
