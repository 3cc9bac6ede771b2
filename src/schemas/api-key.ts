// An API key as /v1/api-keys lists it: never its secret.
import {z} from 'zod';
import {API_KEY_STATUSES} from '../definitions.js';
import type {Exact} from './exact.js';
import {nullableTimestamp, timestamp} from './timestamp.js';

export const ApiKeySchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  created_by: z.string().nullable(),
  created_at: timestamp,
  last_used_at: nullableTimestamp,
  expires_at: nullableTimestamp,
  status: z.enum(API_KEY_STATUSES),
});
export type ApiKey = Exact<z.infer<typeof ApiKeySchema>>;
