// The timestamps of the wire records.
import {z} from 'zod';

// Parsed as any string (a client must not break on a finer timestamp), documented as date-time.
export const timestamp = z.string().meta({format: 'date-time'});
export const nullableTimestamp = timestamp.nullable();
