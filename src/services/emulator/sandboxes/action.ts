// `svc emulator sandboxes action`: moves a sandbox along its state table (stop, crash, fail, standby, …).
import type {SandboxMove} from '../../../../emulator/control-client.js';
import {SANDBOX_ACTIONS, type SandboxAction} from '../../../definitions.js';
import {type ConnectOptions, withControl} from '../connect.js';

/** Every move but `expire`: only the clock expires a sandbox, when its expires_at passes. */
export const SANDBOX_ACTION_NAMES = SANDBOX_ACTIONS.filter(
  (action): action is Exclude<SandboxAction, 'expire'> => action !== 'expire',
);

export interface SandboxActionOptions extends ConnectOptions {
  id: string;
  action: (typeof SANDBOX_ACTION_NAMES)[number];
  lastError?: string;
}

export function sandboxAction(options: SandboxActionOptions): Promise<SandboxMove> {
  return withControl(options, (control) =>
    control.sandboxAction(options.id, options.action, {last_error: options.lastError}),
  );
}
