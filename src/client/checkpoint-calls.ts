// The control client's calls for one org's checkpoints (POST/GET /_emulator/orgs/{id}/checkpoints, …/{name}/rewind,
// DELETE …/{name}), made through the client's own request (emulator-control.ts), which parses each answer with
// its schema (src/schemas/checkpoints.ts).
import type {z} from 'zod';
import type {Checkpoint, CheckpointDeleted, RewoundCheckpoint} from '../schemas/checkpoints.js';

export type {Checkpoint, CheckpointDeleted, RewoundCheckpoint};

type Schemas = typeof import('./control-schemas.js');

/** The control client's request: method, path, the schema its answer is parsed with, and a JSON body. */
export type ControlCall = <T>(
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  pick: (s: Schemas) => z.ZodType<T>,
  body?: unknown,
) => Promise<T>;

const of = (orgId: string, name?: string) =>
  `/_emulator/orgs/${encodeURIComponent(orgId)}/checkpoints${name === undefined ? '' : `/${encodeURIComponent(name)}`}`;

/** What EmulatorControl extends with the four calls, made through its own request (`controlCall`). */
export abstract class CheckpointCalls {
  protected abstract readonly controlCall: ControlCall;

  /**
   * Saves one org's rows (keys, endpoints, sandboxes and links, events, deliveries and attempts), its clock and so
   * its pending schedule under a name; 409 `conflict` when the org has one of that name already.
   */
  checkpoint(orgId: string, name: string): Promise<Checkpoint> {
    return this.controlCall('POST', of(orgId), (s) => s.CheckpointSchema, {name});
  }

  /**
   * Puts the org back exactly as the checkpoint saved it (its clock too, on a manual clock), once what was in
   * flight for it is cancelled; no other org is touched. The checkpoint stays, to rewind to again.
   */
  rewind(orgId: string, name: string): Promise<RewoundCheckpoint> {
    return this.controlCall('POST', `${of(orgId, name)}/rewind`, (s) => s.RewoundCheckpointSchema);
  }

  /** The org's checkpoints, oldest first. */
  async checkpoints(orgId: string): Promise<Checkpoint[]> {
    return (await this.controlCall('GET', of(orgId), (s) => s.listOf(s.CheckpointSchema))).data;
  }

  deleteCheckpoint(orgId: string, name: string): Promise<CheckpointDeleted> {
    return this.controlCall('DELETE', of(orgId, name), (s) => s.CheckpointDeletedSchema);
  }
}
