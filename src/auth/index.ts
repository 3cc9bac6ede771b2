// Credential storage and the URL policy.
export {DEFAULT_ACCOUNT_URL, DEFAULT_API_URL, KEYCHAIN_SERVICE} from './constants.js';
export {type CredentialEntry, FileCredentialStore, type StoreKind} from './file-store.js';
export {
  KEYCHAIN_TIMEOUT_MS,
  type KeyringEntry,
  type KeyringEntryFactory,
  KeychainStore,
  KeychainUnavailableError,
} from './keychain-store.js';
export {
  apiKeyShapeOk,
  type CredentialSource,
  envApiKey,
  NotLoggedInError,
  type ResolvedCredentials,
  resolveApiUrl,
  resolveStoredApiUrl,
  resolveCredentials,
} from './resolve.js';
export {openSession, type Session} from './session.js';
export {ApiUrlError, isLoopbackHost, normalizeApiUrl} from './url-policy.js';
