// Where the org's keys and webhook endpoints are managed: named by `svc keys list` and `svc webhooks list` when
// the list is empty. The client's rule (the service's own page, or an emulator's); loaded only when shown.
import type {SvcClient} from '@svc/client';

export async function accountPageOf(client: SvcClient): Promise<string> {
  return (await import('@svc/client')).accountUrlFor(client.apiUrl);
}
