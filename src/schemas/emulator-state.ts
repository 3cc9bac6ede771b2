// Wire records of the emulator's state files on its control surface (/_emulator/state): a seed or snapshot
// document to load, what loading it did (what a seed made in each org, the rows a snapshot put back) and what
// a reset leaves. The emulator's state routes answer with them; the control client parses with them.
import {z} from 'zod';
import type {Exact} from './index.js';
import {SNAPSHOT_TABLES} from './snapshot.js';

export const ImportStateRequestSchema = z.object({
  /** The file's name, for every message about it. */
  source: z.string(),
  document: z.unknown(),
  mode: z.enum(['merge', 'replace']),
});
export type ImportStateRequest = Exact<z.infer<typeof ImportStateRequestSchema>>;

const SeededKeySchema = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  expires_at: z.string().nullable(),
  /** Only for a key the seed gave no secret: made by the emulator, shown this once. */
  secret: z.string().optional(),
});
const SeededWebhookSchema = z.object({id: z.string(), url: z.string(), secret: z.string().optional()});

/** What loading a seed did: each org with what was made in it (secrets only where the seed gave none). */
export const SeedLoadResultSchema = z.object({
  kind: z.literal('seed'),
  default_org_id: z.string(),
  orgs: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      keys: z.array(SeededKeySchema),
      webhooks: z.array(SeededWebhookSchema),
      sandboxes: z.array(z.object({id: z.string(), name: z.string(), status: z.string()})),
      people: z.array(z.object({email: z.string(), role: z.string()})),
    }),
  ),
  warnings: z.array(z.string()),
});
export type SeedLoadResult = Exact<z.infer<typeof SeedLoadResultSchema>>;

/** What loading a snapshot did: rows per table, and whether a manual clock was set to the snapshot's time. */
export const SnapshotLoadResultSchema = z.object({
  kind: z.literal('snapshot'),
  default_org_id: z.string(),
  rows: z.record(z.enum(SNAPSHOT_TABLES), z.number().int()),
  clock: z.enum(['set', 'kept']),
});
export type SnapshotLoadResult = Exact<z.infer<typeof SnapshotLoadResultSchema>>;

export const StateLoadResultSchema = z.discriminatedUnion('kind', [
  SeedLoadResultSchema,
  SnapshotLoadResultSchema,
]);
export type StateLoadResult = Exact<z.infer<typeof StateLoadResultSchema>>;

export const StateResetSchema = z.object({reset: z.literal(true), default_org_id: z.string()});
export type StateReset = Exact<z.infer<typeof StateResetSchema>>;
