// Which key and which address a command uses, and why: SVC_API_KEY over a stored key; --api-url or
// SVC_API_URL over the default; a stored key only ever for the exact address it was stored for.
import {DEFAULT_ACCOUNT_URL, DEFAULT_API_URL, isLoopbackHost, normalizeApiUrl} from '@svc/client';
import {API_KEY_SECRET_BODY_LENGTH, API_KEY_SECRET_PATTERN, API_KEY_SECRET_PREFIX} from '../definitions.js';
import {UserError} from '../lib/errors.js';
import {ExitCode} from '../lib/exit-codes.js';
import {configDir} from '../user-dirs.js';
import {FileCredentialStore} from './file-store.js';
import {KeychainStore} from './keychain-store.js';

export type CredentialSource = 'env' | 'keychain' | 'file';

export interface ResolvedCredentials {
  apiKey: string;
  apiUrl: string;
  source: CredentialSource;
}

export interface ResolveOptions {
  env: NodeJS.ProcessEnv;
  flags?: {apiUrl?: string | undefined};
  fileStore?: FileCredentialStore;
  keychain?: KeychainStore;
}

export class NotLoggedInError extends UserError {
  constructor(apiUrl: string) {
    const login = apiUrl === DEFAULT_API_URL ? 'svc login' : `svc login --api-url ${apiUrl}`;
    // The message names the way out too: with --json (and through MCP) it is all that is shown.
    super(`not logged in to ${apiUrl}; run \`${login}\` or set SVC_API_KEY`, {
      code: 'not_logged_in',
      exitCode: ExitCode.unauthorized,
      // Where a key comes from, which the message does not say: the way to use one it says already.
      suggestions: [
        isLoopbackHost(new URL(apiUrl).hostname)
          ? `No key yet? Make one and log in with it: \`svc emulator keys create --name dev | ${login}\``
          : `No key yet? Keys are made on the account page, ${apiUrl === DEFAULT_API_URL && DEFAULT_ACCOUNT_URL !== undefined ? DEFAULT_ACCOUNT_URL : `${apiUrl}/account`}`,
      ],
    });
    this.name = 'NotLoggedInError';
  }
}

/**
 * No --api-url, no SVC_API_URL, no stored login, and a build that names no service address: nothing is sent,
 * and the message names the three ways to give one. With SVC_API_KEY set, a stored login's address does not
 * count (a key from the environment is never sent to it): the message says so, and names the one way that works.
 */
export class NoApiAddressError extends UserError {
  /**
   * `first`: a way out that fits this machine (an emulator running here), named before the general ones.
   * `envKey`: SVC_API_KEY is set, and `storedLogin` the address of the latest login it keeps from being used.
   */
  constructor(first: string[] = [], envKey?: {storedLogin?: string}) {
    super(
      envKey === undefined
        ? 'no API address to talk to: svc has no default address in this build, and none was given'
        : envKey.storedLogin === undefined
          ? 'SVC_API_KEY is set, but no address to send it to: a key from the environment goes to SVC_API_URL (or --api-url), and neither is set'
          : `SVC_API_KEY is set, but no address to send it to: a key from the environment goes to SVC_API_URL (or --api-url), never to the address of the stored login (${envKey.storedLogin}), and neither is set`,
      {
        code: 'no_api_url',
        exitCode: ExitCode.usage,
        suggestions:
          envKey === undefined
            ? [
                ...first,
                'Log in to an address once: `svc login --api-url URL` (an emulator prints its address when it starts)',
                'Or set SVC_API_URL=URL, or pass --api-url URL to this command',
                'No service at hand? Start the emulator: `svc emulator start --demo`',
              ]
            : [
                ...first,
                envKey.storedLogin === undefined
                  ? 'Set SVC_API_URL to the address the key belongs to (an emulator prints its address when it starts), or pass --api-url URL'
                  : `Set SVC_API_URL=${envKey.storedLogin} if the key belongs there, or pass --api-url URL`,
                ...(envKey.storedLogin === undefined
                  ? []
                  : [`Or unset SVC_API_KEY to use the stored login for ${envKey.storedLogin}`]),
              ],
      },
    );
    this.name = 'NoApiAddressError';
  }
}

function defaultApiUrl(): string {
  if (DEFAULT_API_URL === undefined) throw new NoApiAddressError();
  return DEFAULT_API_URL;
}

export function apiKeyShapeOk(key: string): boolean {
  return API_KEY_SECRET_PATTERN.test(key);
}

/** The address: --api-url, then SVC_API_URL, then the default; always through the URL policy. */
export function resolveApiUrl(options: Pick<ResolveOptions, 'env' | 'flags'>): string {
  return normalizeApiUrl(explicitApiUrl(options) ?? defaultApiUrl());
}

function explicitApiUrl(options: Pick<ResolveOptions, 'env' | 'flags'>): string | undefined {
  const fromFlag = options.flags?.apiUrl;
  const fromEnv = options.env.SVC_API_URL;
  return fromFlag ?? (fromEnv !== undefined && fromEnv !== '' ? fromEnv : undefined);
}

/**
 * The address a command uses when it may fall back on a stored login: --api-url, then SVC_API_URL;
 * with neither (and no SVC_API_KEY, which always pairs with SVC_API_URL or the default), the address
 * of the latest `svc login`, so `svc login --api-url X` followed by `svc org` talks to X. The stored
 * key still only ever goes to the address it was stored for.
 */
export async function resolveStoredApiUrl(
  options: Pick<ResolveOptions, 'env' | 'flags'> & {fileStore: FileCredentialStore},
): Promise<string> {
  const explicit = explicitApiUrl(options);
  if (explicit !== undefined) return normalizeApiUrl(explicit);
  if (envApiKey(options.env) === undefined) {
    const current = await options.fileStore.current();
    if (current !== undefined) return current;
  } else if (DEFAULT_API_URL === undefined) {
    // The stored login is not used for a key from the environment; naming it tells the way out. A file that cannot
    // be read changes nothing of what is said.
    const storedLogin = await options.fileStore.current().catch(() => undefined);
    throw new NoApiAddressError([], {storedLogin});
  }
  return defaultApiUrl();
}

export function defaultFileStore(
  env: NodeJS.ProcessEnv,
  warn?: (message: string) => void,
): FileCredentialStore {
  return new FileCredentialStore({dir: configDir(env), warn});
}

/** The credentials file read and never changed: for `svc doctor`, which reports what it finds. */
export function lookOnlyFileStore(env: NodeJS.ProcessEnv): FileCredentialStore {
  return new FileCredentialStore({dir: configDir(env), repair: false});
}

/** SVC_API_KEY when set and non-empty, trimmed; undefined otherwise. */
export function envApiKey(env: NodeJS.ProcessEnv): string | undefined {
  const value = env.SVC_API_KEY?.trim();
  return value ? value : undefined;
}

export async function resolveCredentials(options: ResolveOptions): Promise<ResolvedCredentials> {
  const fileStore = options.fileStore ?? defaultFileStore(options.env);
  const apiUrl = await resolveStoredApiUrl({...options, fileStore});
  const fromEnv = envApiKey(options.env);
  if (fromEnv !== undefined) {
    if (!apiKeyShapeOk(fromEnv)) {
      throw new UserError(
        `SVC_API_KEY does not look like an svc API key (${API_KEY_SECRET_PREFIX} followed by ${API_KEY_SECRET_BODY_LENGTH} letters and digits)`,
        {
          code: 'invalid_api_key',
          exitCode: ExitCode.unauthorized,
          suggestions: [
            'Copy the key again from the account page, or unset SVC_API_KEY to use the stored key',
          ],
        },
      );
    }
    return {apiKey: fromEnv, apiUrl, source: 'env'};
  }
  const entry = await fileStore.get(apiUrl);
  if (entry?.store === 'file' && typeof entry.api_key === 'string') {
    return {apiKey: entry.api_key, apiUrl, source: 'file'};
  }
  if (entry?.store === 'keychain') {
    const keychain = options.keychain ?? new KeychainStore();
    const apiKey = await keychain.get(apiUrl);
    if (apiKey) return {apiKey, apiUrl, source: 'keychain'};
    const login = apiUrl === DEFAULT_API_URL ? 'svc login' : `svc login --api-url ${apiUrl}`;
    throw new UserError(
      `the key for ${apiUrl} is no longer in the OS keychain; run \`${login} --keychain\` again`,
      {
        code: 'not_logged_in',
        exitCode: ExitCode.unauthorized,
      },
    );
  }
  throw new NotLoggedInError(apiUrl);
}
