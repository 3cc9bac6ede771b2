// `svc emulator sandboxes action`: moves a sandbox (stop, crash, fail, standby, …); each move emits its event.
import type {SandboxMove} from '@svc/client';
import type {SANDBOX_REQUESTABLE_ACTIONS} from '../../../definitions.js';
import {type At, type ConnectOptions, withControlAt} from '../connect.js';

export interface SandboxActionOptions extends ConnectOptions {
  id: string;
  action: (typeof SANDBOX_REQUESTABLE_ACTIONS)[number];
  lastError?: string;
  /** The org to act on (`org_…`); default: the emulator's default org. */
  org?: string;
}

export function sandboxAction(options: SandboxActionOptions): Promise<At<SandboxMove>> {
  return withControlAt(options, (control) =>
    control.sandboxAction(options.id, options.action, {last_error: options.lastError, org_id: options.org}),
  );
}
