// `svc webhooks list`: the org's webhook endpoints (signing secrets are shown only at creation).
import type {SvcClient} from '@svc/client';
import type {WebhookEndpoint} from '../../schemas/index.js';

export interface ListWebhooksOptions {
  client: SvcClient;
  signal?: AbortSignal;
}

export function listWebhooks(options: ListWebhooksOptions): Promise<WebhookEndpoint[]> {
  return options.client.listWebhooks({signal: options.signal});
}
