// `svc emulator sandboxes action`: moves a sandbox along spec §3 (stop, crash, fail, standby, …).
import type {SandboxMove} from '../../../../emulator/control-client.js';
import {type ConnectOptions, withControl} from '../connect.js';

export const SANDBOX_ACTION_NAMES = [
  'resume',
  'fork',
  'stop',
  'quota-exhausted',
  'disk-limit',
  'crash',
  'fail',
  'standby',
  'wake',
] as const;

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
