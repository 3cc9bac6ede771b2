// The envelope of every list the API answers with.
import {z} from 'zod';

export function listOf<T extends z.ZodType>(item: T) {
  return z.looseObject({data: z.array(item)});
}
export interface List<T> {
  data: T[];
}
