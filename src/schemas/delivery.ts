// A delivery of an event to a webhook endpoint (/v1/webhooks/{id}/deliveries).
import {z} from 'zod';
import {DELIVERY_STATUSES} from '../definitions.js';
import type {Exact} from './exact.js';
import {nullableTimestamp, timestamp} from './timestamp.js';

export const DeliverySchema = z.looseObject({
  id: z.string(),
  event_id: z.string(),
  event_type: z.string(),
  status: z.enum(DELIVERY_STATUSES),
  attempts: z.number().int().nonnegative(),
  created_at: timestamp,
  last_attempt_at: nullableTimestamp,
  next_attempt_at: nullableTimestamp,
  last_status_code: z.number().int().nullable(),
});
export type Delivery = Exact<z.infer<typeof DeliverySchema>>;
