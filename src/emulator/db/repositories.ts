// The repositories an emulator's routes and operations share, one per table, built over one database.
import {ApiKeyRepository} from './api-keys.js';
import type {Database} from './database.js';
import {DeliveryReadRepository} from './deliveries.js';
import {MetaRepository} from './meta.js';
import {OrgRepository} from './orgs.js';
import type {ReadCache} from './read-cache.js';
import {type CachedRead, uncached} from './repository-support.js';
import {SandboxLinkRepository} from './sandbox-links.js';
import {WebhookEndpointRepository} from './webhook-endpoints.js';

export interface Repositories {
  orgs: OrgRepository;
  meta: MetaRepository;
  keys: ApiKeyRepository;
  endpoints: WebhookEndpointRepository;
  deliveries: DeliveryReadRepository;
  links: SandboxLinkRepository;
}

/** cache: hot reads come from memory (see read-cache.ts); the database must then be the write-tracked one. */
export function createRepositories(db: Database, cache?: ReadCache): Repositories {
  const cached: CachedRead = cache ? (key, load) => cache.get(key, load) : uncached;
  return {
    orgs: new OrgRepository(db, cached),
    meta: new MetaRepository(db),
    keys: new ApiKeyRepository(db, cached),
    endpoints: new WebhookEndpointRepository(db, cached),
    deliveries: new DeliveryReadRepository(db),
    links: new SandboxLinkRepository(db),
  };
}
