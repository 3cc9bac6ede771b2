// The org an API key belongs to (/v1/org).
import {z} from 'zod';
import type {Exact} from './exact.js';
import {timestamp} from './timestamp.js';

export const OrgSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  created_at: timestamp,
});
export type Org = Exact<z.infer<typeof OrgSchema>>;
