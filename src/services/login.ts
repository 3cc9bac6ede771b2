// `svc login`: read a key from standard input, check it against GET /v1/org, and only then store it.
import {emulatorDataDir} from '../user-dirs.js';
import type {ClientOptions} from '@svc/client';
import type {FileCredentialStore} from '../auth/file-store.js';
import {KeychainStore} from '../auth/keychain-store.js';
import {API_KEY_SECRET_BODY_LENGTH, API_KEY_SECRET_PREFIX} from '../definitions.js';
import {
  apiKeyShapeOk,
  defaultFileStore,
  envApiKey,
  NoApiAddressError,
  resolveApiUrl,
} from '../auth/resolve.js';
import {UserError} from '../lib/errors.js';
import {ExitCode} from '../lib/exit-codes.js';
import {currentSvcCommand} from '../lib/invocation.js';

export interface LoginOptions {
  env: NodeJS.ProcessEnv;
  apiUrl?: string;
  keychain: boolean;
  /** Called once the address is known to be acceptable, so a person is never asked for a key in vain. */
  readKey: () => Promise<string>;
  /** The key is read at a prompt (a terminal), not from a pipe: an empty answer gets a person's next step. */
  interactive?: boolean;
  fileStore?: FileCredentialStore;
  keychainStore?: KeychainStore;
  client?: Omit<ClientOptions, 'apiUrl' | 'apiKey'>;
  warn?: (message: string) => void;
}

export interface LoginResult {
  api_url: string;
  org: {id: string; name: string};
  store: 'file' | 'keychain';
  /** Where the key lives: the file path or "OS keychain". */
  location: string;
  key_prefix: string;
}

export const STDIN_ONLY_MESSAGE =
  'pass the key on standard input (`svc login < key.txt`), or run `svc login` at a terminal and paste it when asked';

/**
 * The default address unreachable (offline, or a typo-free but absent network) while an emulator runs here:
 * the person most likely meant the emulator, so the error names it and the exact command.
 */
async function pointAtRunningEmulator(err: unknown, options: LoginOptions): Promise<unknown> {
  const unreachable = (err as {code?: unknown})?.code === 'network_error';
  if (!unreachable || options.apiUrl !== undefined || options.env.SVC_API_URL) return err;
  const {findRunning} = await import('./emulator/connect.js');
  const running = await findRunning({env: options.env, dataDir: emulatorDataDir(options.env)}).catch(
    () => undefined,
  );
  if (!running) return err;
  const apiUrl = running.info.api_url;
  return new UserError((err as Error).message, {
    code: 'network_error',
    suggestions: [
      `An emulator is running at ${apiUrl}; log in to it with: ${currentSvcCommand(options.env)} login --api-url ${apiUrl}`,
    ],
  });
}

/** No address given while an emulator runs here: the person most likely meant it, so the error names it. */
async function namingRunningEmulator(err: unknown, options: LoginOptions): Promise<never> {
  if (!(err instanceof NoApiAddressError)) throw err;
  const {findRunning} = await import('./emulator/connect.js');
  const running = await findRunning({env: options.env}).catch(() => undefined);
  if (!running) throw err;
  const apiUrl = running.info.api_url;
  throw new NoApiAddressError([
    `An emulator is running at ${apiUrl}; log in to it with: ${currentSvcCommand(options.env)} login --api-url ${apiUrl}`,
  ]);
}

export async function login(options: LoginOptions): Promise<LoginResult> {
  if (envApiKey(options.env) !== undefined) {
    throw new UserError(
      'SVC_API_KEY is set, and it wins over any stored key, so a login would have no effect',
      {
        code: 'env_key_set',
        suggestions: ['Unset SVC_API_KEY first (`unset SVC_API_KEY`), or keep using it and skip `svc login`'],
      },
    );
  }
  let apiUrl: string;
  try {
    apiUrl = resolveApiUrl({env: options.env, flags: {apiUrl: options.apiUrl}});
  } catch (err) {
    return namingRunningEmulator(err, options);
  }
  const apiKey = (await options.readKey()).trim();
  if (apiKey === '') {
    // At a prompt a person pressed Enter on nothing: the way to pipe a key is not what they need to hear.
    if (options.interactive) {
      throw new UserError('no key was pasted, so nothing is stored', {
        code: 'usage',
        exitCode: ExitCode.usage,
        suggestions: [
          `Run it again and paste the key (${API_KEY_SECRET_PREFIX} and ${API_KEY_SECRET_BODY_LENGTH} letters and digits); keys are made on the account page, or with \`svc emulator keys create\``,
        ],
      });
    }
    throw new UserError(`no key arrived on standard input; ${STDIN_ONLY_MESSAGE}`, {
      code: 'usage',
      exitCode: ExitCode.usage,
    });
  }
  if (!apiKeyShapeOk(apiKey)) {
    // The input may be some other secret pasted by mistake: describe it, never echo it.
    throw new UserError(
      `that does not look like an svc API key (${API_KEY_SECRET_PREFIX} followed by ${API_KEY_SECRET_BODY_LENGTH} letters and digits)`,
      {
        code: 'invalid_api_key',
        exitCode: ExitCode.usage,
        suggestions: ['Copy the key from the account page where it was created; it is shown only once'],
      },
    );
  }

  const [{createClient}, {nodeHttpFetch}] = await Promise.all([
    import('@svc/client'),
    import('../lib/node-transport.js'),
  ]);
  let org: Awaited<ReturnType<ReturnType<typeof createClient>['getOrg']>>;
  try {
    org = await createClient({fetch: nodeHttpFetch(), ...options.client, apiUrl, apiKey}).getOrg();
  } catch (err) {
    throw await pointAtRunningEmulator(err, options);
  }

  const fileStore = options.fileStore ?? defaultFileStore(options.env, options.warn);
  const previous = await fileStore.get(apiUrl);
  const base = {org_id: org.id, org_name: org.name, stored_at: new Date().toISOString()};
  let location = fileStore.path;
  if (options.keychain) {
    const keychain = options.keychainStore ?? new KeychainStore();
    // Fails loudly when there is no keychain; nothing is written to the file in that case.
    await keychain.set(apiUrl, apiKey);
    await fileStore.set(apiUrl, {store: 'keychain', ...base});
    location = 'the OS keychain';
  } else {
    await fileStore.set(apiUrl, {store: 'file', api_key: apiKey, ...base});
    if (previous?.store === 'keychain') {
      const keychain = options.keychainStore ?? new KeychainStore();
      await keychain.delete(apiUrl).catch((err: Error) => {
        options.warn?.(`the previous key for ${apiUrl} is still in the OS keychain: ${err.message}`);
      });
    }
  }
  return {
    api_url: apiUrl,
    org: {id: org.id, name: org.name},
    store: options.keychain ? 'keychain' : 'file',
    location,
    key_prefix: apiKey.slice(0, 8),
  };
}
