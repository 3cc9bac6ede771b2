// A ready client for a command: credentials resolved by the rules in resolve.ts, then the client built for them.
import type {ClientOptions, SvcClient} from '../client/client.js';
import {type ResolvedCredentials, type ResolveOptions, resolveCredentials} from './resolve.js';

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
    import('../client/client.js'),
    import('../client/node-transport.js'),
  ]);
  const client = createClient({
    fetch: nodeHttpFetch(),
    ...options.client,
    apiUrl: credentials.apiUrl,
    apiKey: credentials.apiKey,
  });
  return {client, credentials};
}
