// API keys in the OS keychain via @napi-rs/keyring. Every call is bounded (a locked or absent D-Bus
// secret service can hang forever) and every failure is reported: never a silent fallback to the file.
import {UserError} from '../lib/errors.js';

/** Name under which keys live in the OS keychain; the account is the normalized API URL. */
export const KEYCHAIN_SERVICE = 'svc';

/** The part of @napi-rs/keyring's AsyncEntry this store uses; tests hand in their own. */
export interface KeyringEntry {
  getPassword(signal?: AbortSignal): Promise<string | null>;
  setPassword(password: string, signal?: AbortSignal): Promise<void>;
  deleteCredential(signal?: AbortSignal): Promise<boolean>;
}
export type KeyringEntryFactory = (service: string, account: string) => KeyringEntry | Promise<KeyringEntry>;

export interface KeychainStoreOptions {
  /** Defaults to @napi-rs/keyring's AsyncEntry, loaded only when the keychain is actually used. */
  entry?: KeyringEntryFactory;
  timeoutMs?: number;
  service?: string;
}

export class KeychainUnavailableError extends UserError {
  constructor(reason: string) {
    super(`the OS keychain is not available here (${reason}); use the file store (default) instead`, {
      code: 'keychain_unavailable',
      suggestions: ['Run `svc login` without --keychain to store the key in a file only you can read'],
    });
    this.name = 'KeychainUnavailableError';
  }
}

export const KEYCHAIN_TIMEOUT_MS = 3000;

export class KeychainStore {
  private readonly entry: KeyringEntryFactory;
  private readonly timeoutMs: number;
  private readonly service: string;

  constructor(options: KeychainStoreOptions = {}) {
    this.entry = options.entry ?? napiEntry;
    this.timeoutMs = options.timeoutMs ?? KEYCHAIN_TIMEOUT_MS;
    this.service = options.service ?? KEYCHAIN_SERVICE;
  }

  get(apiUrl: string): Promise<string | null> {
    return this.bounded(apiUrl, (e, signal) => e.getPassword(signal));
  }

  set(apiUrl: string, apiKey: string): Promise<void> {
    return this.bounded(apiUrl, (e, signal) => e.setPassword(apiKey, signal));
  }

  delete(apiUrl: string): Promise<boolean> {
    return this.bounded(apiUrl, (e, signal) => e.deleteCredential(signal));
  }

  private async bounded<T>(
    apiUrl: string,
    call: (entry: KeyringEntry, signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    // The native call is asked to stop via the signal; the race makes sure we stop waiting even if it does not.
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(new KeychainUnavailableError(`no answer within ${this.timeoutMs / 1000} s`));
      }, this.timeoutMs);
    });
    try {
      const work = (async () => call(await this.entry(this.service, apiUrl), controller.signal))();
      work.catch(() => {}); // settled after a timeout: nobody listens any more
      return await Promise.race([work, timeout]);
    } catch (err) {
      if (err instanceof KeychainUnavailableError) throw err;
      throw new KeychainUnavailableError(reasonOf(err));
    } finally {
      clearTimeout(timer);
    }
  }
}

async function napiEntry(service: string, account: string): Promise<KeyringEntry> {
  let mod: typeof import('@napi-rs/keyring');
  try {
    mod = await import('@napi-rs/keyring');
  } catch {
    throw new KeychainUnavailableError(
      'the optional @napi-rs/keyring module is not installed for this platform',
    );
  }
  return new mod.AsyncEntry(service, account) as unknown as KeyringEntry;
}

/** The keyring library's message names the failure (AccessDenied, NoStorageAccess, ...) and never the secret. */
function reasonOf(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const oneLine = message.replace(/\s+/g, ' ').trim();
  return oneLine.length > 160 ? `${oneLine.slice(0, 157)}...` : oneLine || 'unknown error';
}
