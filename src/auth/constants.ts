// Where svc talks to when nothing says otherwise: one place, so the default can never disagree with itself.
export const DEFAULT_API_URL = 'https://api.svc.dev';
export const DEFAULT_ACCOUNT_URL = 'https://svc.dev/account';
/** Name under which keys live in the OS keychain; the account is the normalized API URL. */
export const KEYCHAIN_SERVICE = 'svc';
