// `svc emulator sandboxes list`: the default org's sandboxes, newest first.
import type {SandboxRecord} from '@svc/client';
import {type At, type ConnectOptions, withControlAt} from '../connect.js';

export async function listSandboxes(options: ConnectOptions & {org?: string}): Promise<At<SandboxRecord[]>> {
  const {value, apiUrl} = await withControlAt(options, (control) => control.listSandboxes(options.org));
  return {value: value.data, apiUrl};
}
