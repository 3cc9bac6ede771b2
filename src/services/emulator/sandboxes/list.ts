// `svc emulator sandboxes list`: the default org's sandboxes, newest first.
import type {SandboxRecord} from '@svc/client';
import {type ConnectOptions, withControl} from '../connect.js';

export async function listSandboxes(options: ConnectOptions & {org?: string}): Promise<SandboxRecord[]> {
  return (await withControl(options, (control) => control.listSandboxes(options.org))).data;
}
