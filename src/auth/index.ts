// Credential storage and which key and address a command uses. The URL policy itself belongs to the client.
export {type CredentialEntry, FileCredentialStore, type StoreKind} from './file-store.js';
export {
  KEYCHAIN_SERVICE,
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
