// `svc emulator webhooks create`: adds an endpoint; its signing secret is shown exactly once.
import {type ConnectOptions, withControl} from '../connect.js';

export interface CreateWebhookOptions extends ConnectOptions {
  url: string;
  events: string[];
  description?: string;
}

export interface CreateWebhookResult {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  secret: string;
}

export function createWebhook(options: CreateWebhookOptions): Promise<CreateWebhookResult> {
  return withControl(options, async (control) => {
    const w = await control.createWebhook({
      url: options.url,
      events: options.events,
      description: options.description,
    });
    return {id: w.id, url: w.url, events: w.events, description: w.description, secret: w.secret};
  });
}
