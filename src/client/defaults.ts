// Where the client talks to when nothing says otherwise: one place, so the default can never disagree with itself.
export const DEFAULT_API_URL = 'https://api.svc.dev';
export const DEFAULT_ACCOUNT_URL = 'https://svc.dev/account';
