// What the auth commands tell people: `svc auth status`, and the lines `svc login` and `svc logout` print.
import type {Paint} from '../lib/output.js';
import {type AuthStatus, SOURCE_TEXT} from '../services/auth/status.js';
import type {LoginResult} from '../services/login.js';
import type {LogoutResult} from '../services/logout.js';
import {sanitize} from './text.js';

export function renderAuthStatus(status: AuthStatus, paint: Paint): string {
  const lines = [
    `${paint('green', '✓')} Logged in to ${sanitize(status.org.name)} (${sanitize(status.org.id)})`,
    `  API:  ${status.api_url}`,
    `  Key:  ${status.key_prefix}… from ${SOURCE_TEXT[status.source]}`,
    ...status.other_logins.map((url) => `  Also stored: a key for ${url}`),
  ];
  return `${lines.join('\n')}\n`;
}

export function loggedIn(result: LoginResult, svc = 'svc'): string {
  const where = result.store === 'file' ? `file ${result.location}` : 'keychain';
  return [
    `Logged in to ${sanitize(result.org.name)} (${sanitize(result.org.id)}) at ${result.api_url}; key stored in ${where}`,
    `Next: ${svc} org, ${svc} keys list, ${svc} webhooks list`,
  ].join('\n');
}

export function loggedOut(result: LogoutResult): string[] {
  if (result.repaired) {
    const what = result.repaired.was === 'folder' ? 'a folder' : 'a damaged file';
    return [
      `The credentials path ${result.repaired.path} held ${what} that no key could be read from; removed it, so no key is stored for any address now.`,
      'Run `svc login` to store a key again.',
    ];
  }
  const env = result.env_key_set ? ['SVC_API_KEY is still set and keeps being used until you unset it.'] : [];
  // Nothing stored: nothing happened, and there is no key to say anything more about.
  if (!result.removed)
    return [
      `Nothing to do: no key is stored${result.api_url === null ? '' : ` for ${result.api_url}`}.`,
      ...env,
    ];
  return [
    `Forgot the key stored for ${result.api_url}.`,
    `This does not revoke the key: keys are revoked on the account page, ${result.account_url}`,
    ...env,
  ];
}
