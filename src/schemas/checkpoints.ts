// Wire records of one org's checkpoints on the control surface (/_emulator/orgs/{id}/checkpoints): what taking,
// listing, rewinding to and deleting a checkpoint answer. The emulator answers with them and the control client
// parses with them (src/client/checkpoint-calls.ts).
import {z} from 'zod';
import type {Exact} from './index.js';
import type {SnapshotTable} from './snapshot.js';

/** The tables a checkpoint holds an org's rows of, in the order a rewind writes them back. */
export const CHECKPOINT_TABLES = [
  'api_keys',
  'webhook_endpoints',
  'relay_endpoints',
  'sandboxes',
  'sandbox_links',
  'events',
  'deliveries',
  'delivery_attempts',
] as const satisfies readonly SnapshotTable[];
export type CheckpointTable = (typeof CHECKPOINT_TABLES)[number];

const count = z.number().int().nonnegative();

/** `POST /_emulator/orgs/{id}/checkpoints`. */
export const CreateCheckpointRequestSchema = z.object({name: z.string()});
export type CreateCheckpointRequest = Exact<z.infer<typeof CreateCheckpointRequestSchema>>;

/**
 * A checkpoint: its name in the org, the real time it was taken (`taken_at`), the org's own time then
 * (`clock_now`, which a rewind on a manual clock puts the org's clock back to) and how many rows of each table it
 * holds.
 */
export const CheckpointSchema = z.object({
  name: z.string(),
  org_id: z.string(),
  taken_at: z.string(),
  clock_now: z.string(),
  counts: z.object({
    api_keys: count,
    webhook_endpoints: count,
    relay_endpoints: count,
    sandboxes: count,
    sandbox_links: count,
    events: count,
    deliveries: count,
    delivery_attempts: count,
  } satisfies Record<CheckpointTable, typeof count>),
});
export type Checkpoint = Exact<z.infer<typeof CheckpointSchema>>;

/**
 * What a rewind answers: the checkpoint, whether the org's clock went back to its time (only a manual clock can
 * be moved back), and the endpoints whose attempts were in flight (in this process or another sharing the
 * database), which were cancelled: none of them is recorded, and none starts after the answer.
 */
export const RewoundCheckpointSchema = CheckpointSchema.extend({
  rewound_at: z.string(),
  clock_restored: z.boolean(),
  cancelled: z.object({endpoints: z.array(z.string())}),
});
export type RewoundCheckpoint = Exact<z.infer<typeof RewoundCheckpointSchema>>;

/** `DELETE /_emulator/orgs/{id}/checkpoints/{name}`. */
export const CheckpointDeletedSchema = z.object({
  deleted: z.literal(true),
  org_id: z.string(),
  name: z.string(),
});
export type CheckpointDeleted = Exact<z.infer<typeof CheckpointDeletedSchema>>;
