// A webhook endpoint as /v1/webhooks lists it.
import {z} from 'zod';
import type {Exact} from './exact.js';
import {timestamp} from './timestamp.js';

export const WebhookEndpointSchema = z.looseObject({
  id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  description: z.string().nullable(),
  created_at: timestamp,
});
export type WebhookEndpoint = Exact<z.infer<typeof WebhookEndpointSchema>>;
