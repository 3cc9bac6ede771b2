// `svc emulator keys revoke`: the key stops working on the very next request.
import type {KeyRecord} from '@svc/client';
import {type At, type ConnectOptions, withControlAt} from '../connect.js';

export function revokeKey(
  options: ConnectOptions & {id: string},
): Promise<At<KeyRecord & {already_revoked?: boolean}>> {
  return withControlAt(options, (control) => control.revokeKey(options.id));
}
