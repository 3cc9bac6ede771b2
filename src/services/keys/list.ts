// `svc keys list`: the org's API keys, never their secrets (the API does not have them).
import type {SvcClient} from '@svc/client';
import type {ApiKey} from '../../schemas/index.js';

export interface ListKeysOptions {
  client: SvcClient;
  signal?: AbortSignal;
}

export function listKeys(options: ListKeysOptions): Promise<ApiKey[]> {
  return options.client.listApiKeys({signal: options.signal});
}
