// `svc emulator sandboxes create`: a new sandbox, ready at once (emits sandbox.ready).
import type {SandboxMove} from '@svc/client';
import {type At, type ConnectOptions, withControlAt} from '../connect.js';

export interface CreateSandboxOptions extends ConnectOptions {
  name?: string;
  expiresIn?: string;
  /** The org to act on (`org_…`); default: the emulator's default org. */
  org?: string;
}

export function createSandbox(options: CreateSandboxOptions): Promise<At<SandboxMove>> {
  return withControlAt(options, (control) =>
    control.createSandbox({name: options.name, expires_in: options.expiresIn, org_id: options.org}),
  );
}
