// The tables of the emulator's state, named once: those a snapshot holds (src/schemas/snapshot.ts, in the order
// they load), those it leaves out, and the parts of them that the read cache and the sandbox links watch.
import {CHECKPOINT_TABLES, type CheckpointTable} from '../../schemas/checkpoints.js';
import {SNAPSHOT_TABLES} from '../../schemas/snapshot.js';

/** The table holding the checkpoints' copies of one table's rows: its columns after the checkpoint's org and name. */
export const checkpointRowsTable = <T extends CheckpointTable>(table: T): `checkpoint_${T}` =>
  `checkpoint_${table}`;

/** The journal of one table: its rows as they were before a change, while their org has a checkpoint kept as a mark. */
export const journalTable = <T extends CheckpointTable>(table: T): `journal_${T}` => `journal_${table}`;

/**
 * Tables of the state a snapshot does not hold as rows: account-page sign-in links and sessions (left out), and
 * the orgs' own clocks (kept as each org's time, `org_clocks`, and written by the org clocks themselves), and the
 * orgs' checkpoints with their rows and journals (org-checkpoints.ts).
 */
const UNSNAPSHOTTED_TABLES = [
  'sign_in_links',
  'account_sessions',
  'org_clocks',
  'org_checkpoints',
  ...CHECKPOINT_TABLES.map(checkpointRowsTable),
  ...CHECKPOINT_TABLES.map(journalTable),
] as const;

/** Every table of the emulator's state (not its clock nor its meta rows). */
export const STATE_TABLES = [...SNAPSHOT_TABLES, ...UNSNAPSHOTTED_TABLES] as const;
export type StateTable = (typeof STATE_TABLES)[number];

/** The tables whose rows the read cache holds (see createRepositories); a write to one clears the cache. */
export const CACHED_TABLES = [
  'orgs',
  'api_keys',
  'webhook_endpoints',
] as const satisfies readonly StateTable[];

/** Further tables whose writes a process is told of: they decide whether a sandbox link works. */
export const NOTICED_TABLES = ['sandboxes', 'sandbox_links'] as const satisfies readonly StateTable[];

/** The tables whose writes may stop a sandbox link (orgs: deleting one deletes its links). */
export const LINK_STATE_TABLES = [
  'api_keys',
  'sandboxes',
  'sandbox_links',
  'orgs',
] as const satisfies readonly StateTable[];
