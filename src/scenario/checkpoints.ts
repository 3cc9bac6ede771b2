// `checkpoint:` and `rewind:` steps: the org's rows, clock and pending schedule saved under a name and restored,
// through the control client's checkpoint calls (EmulatorControl.checkpoint and .rewind) with the org's own control
// token.
import {EmulatorControl, EmulatorControlError} from '@svc/client';
import type {OrgCheckpoints} from './world.js';

export function orgCheckpoints(connection: {url: string; token: string}, orgId: string): OrgCheckpoints {
  const control = new EmulatorControl({url: connection.url, adminToken: connection.token});
  const call = async (made: Promise<unknown>) => {
    try {
      await made;
    } catch (err) {
      // A 404 that is not the emulator's own not_found: the route is missing, not the checkpoint.
      if (err instanceof EmulatorControlError && err.status === 404 && err.code !== 'not_found') {
        throw new EmulatorControlError(
          'this emulator keeps no per-org checkpoints (its version has no checkpoint routes)',
          err.status,
          err.code,
        );
      }
      throw err;
    }
  };
  return {
    checkpoint: (name) => call(control.checkpoint(orgId, name)),
    rewind: (name) => call(control.rewind(orgId, name)),
  };
}
