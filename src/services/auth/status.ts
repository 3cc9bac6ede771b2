// `svc auth status`: which key is in use (where it came from, its prefix), for which address and org.
import {DEFAULT_API_URL, UnauthorizedError} from '@svc/client';
import {type CredentialSource, defaultFileStore} from '../../auth/resolve.js';
import {UserError} from '../../lib/errors.js';
import {ExitCode} from '../../lib/exit-codes.js';
import type {CommandSession} from '../../lib/session.js';

/** Where a key came from, as people read it. */
export const SOURCE_TEXT = {
  env: 'SVC_API_KEY',
  keychain: 'the OS keychain',
  file: 'the credentials file',
} as const;

export interface AuthStatusOptions {
  /** The command's session: the key in use, where it came from, and its client. */
  session: CommandSession;
  env: NodeJS.ProcessEnv;
  /** What the credentials store repairs on its own while the other logins are read. */
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
  const {client, credentials} = options.session;
  const prefix = credentials.apiKey.slice(0, 8);
  const org = await client.getOrg().catch((err: unknown) => {
    if (!(err instanceof UnauthorizedError)) throw err;
    // A rejected key is when its source, prefix and address matter most: which key to replace, and where.
    const from = SOURCE_TEXT[credentials.source];
    const login =
      credentials.apiUrl === DEFAULT_API_URL ? 'svc login' : `svc login --api-url ${credentials.apiUrl}`;
    throw new UserError(
      `the key ${prefix}… from ${from} is rejected by ${credentials.apiUrl} (401: revoked, expired or mistyped)`,
      {
        code: 'unauthorized',
        exitCode: ExitCode.unauthorized,
        suggestions: [
          credentials.source === 'env'
            ? 'Set SVC_API_KEY to a key that works, or unset it to use a stored one'
            : `Log in with a key that works: \`${login}\``,
        ],
        cause: err,
      },
    );
  });
  const stored = await defaultFileStore(options.env, options.warn).list();
  return {
    source: credentials.source,
    api_url: credentials.apiUrl,
    key_prefix: prefix,
    org: {id: org.id, name: org.name},
    other_logins: Object.keys(stored).filter((url) => url !== credentials.apiUrl),
  };
}
