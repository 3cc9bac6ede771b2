// `svc org`: the org the key belongs to.
import type {SvcClient} from '@svc/client';
import type {Org} from '../schemas/index.js';

export interface ShowOrgOptions {
  client: SvcClient;
  signal?: AbortSignal;
}

export function showOrg(options: ShowOrgOptions): Promise<Org> {
  return options.client.getOrg({signal: options.signal});
}
