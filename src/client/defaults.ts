// The service's own addresses are facts of a deployment, not of this code: the package build fills them from
// SVC_DEFAULT_API_URL and SVC_DEFAULT_ACCOUNT_URL (scripts/build-libs.js, scripts/bundle-cli.js), and a build
// that sets neither has no default at all, so a key is never sent to an address someone guessed.
declare const __SVC_DEFAULT_API_URL__: string | undefined;
declare const __SVC_DEFAULT_ACCOUNT_URL__: string | undefined;

export const DEFAULT_API_URL: string | undefined =
  typeof __SVC_DEFAULT_API_URL__ === 'string' ? __SVC_DEFAULT_API_URL__ : undefined;
export const DEFAULT_ACCOUNT_URL: string | undefined =
  typeof __SVC_DEFAULT_ACCOUNT_URL__ === 'string' ? __SVC_DEFAULT_ACCOUNT_URL__ : undefined;
