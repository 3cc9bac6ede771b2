// `svc emulator reset`: empties the emulator's state (one empty default org remains; the clock stays).
import {type StateTargetOptions, withStateTarget} from './connect.js';

export function resetState(options: StateTargetOptions): Promise<{reset: true; default_org_id: string}> {
  return withStateTarget(options, (control) => control.resetState());
}
