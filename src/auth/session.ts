// A ready client for a command: credentials resolved by the rules in resolve.ts, then the client built for them.
import {type ClientOptions, type SvcClient, DEFAULT_API_URL, UnauthorizedError} from '@svc/client';
import type {SessionOpener} from '../lib/session.js';
import {
  defaultFileStore,
  type ResolvedCredentials,
  type ResolveOptions,
  resolveCredentials,
} from './resolve.js';

export interface Session {
  client: SvcClient;
  credentials: ResolvedCredentials;
}

export type SessionOptions = ResolveOptions & {
  /** Transport and retry settings passed to the client (tests inject fetch and sleep). */
  client?: Omit<ClientOptions, 'apiUrl' | 'apiKey'>;
};

export async function openSession(options: SessionOptions): Promise<Session> {
  const credentials = await resolveCredentials(options);
  const [{createClient}, {nodeHttpFetch}] = await Promise.all([
    import('@svc/client'),
    import('../lib/node-transport.js'),
  ]);
  const client = createClient({
    fetch: nodeHttpFetch(),
    ...options.client,
    apiUrl: credentials.apiUrl,
    apiKey: credentials.apiKey,
  });
  return {client: explainRejections(client, credentials), credentials};
}

/** A command's session (BaseCommand.session): its env and --api-url; the store's own repairs said through `warn`. */
export const openCommandSession: SessionOpener = (request) =>
  openSession({
    env: request.env,
    flags: {apiUrl: request.apiUrl},
    client: request.client,
    fileStore: request.warn ? defaultFileStore(request.env, request.warn) : undefined,
  });

/** The next step after a 401 depends on where the key came from: replace SVC_API_KEY, or log in again. */
export function rejectionMessage(credentials: Pick<ResolvedCredentials, 'source' | 'apiUrl'>): string {
  if (credentials.source === 'env') {
    return 'the API key in SVC_API_KEY was rejected (revoked or expired?). Set SVC_API_KEY to a new key';
  }
  const login =
    credentials.apiUrl === DEFAULT_API_URL ? 'svc login' : `svc login --api-url ${credentials.apiUrl}`;
  return `the API key was rejected (revoked or expired?). Run \`${login}\` with a new key`;
}

function explainRejections(client: SvcClient, credentials: ResolvedCredentials): SvcClient {
  const explain =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await call(...args);
      } catch (err) {
        if (err instanceof UnauthorizedError) throw new UnauthorizedError(rejectionMessage(credentials));
        throw err;
      }
    };
  return {
    apiUrl: client.apiUrl,
    getOrg: explain(client.getOrg),
    listApiKeys: explain(client.listApiKeys),
    listWebhooks: explain(client.listWebhooks),
    listDeliveries: explain(client.listDeliveries),
    serverNowMs: client.serverNowMs,
  };
}
