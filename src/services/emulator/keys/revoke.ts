// `svc emulator keys revoke`: the key stops working on the very next request.
import type {KeyRecord} from '@svc/client';
import {type ConnectOptions, withControl} from '../connect.js';

export function revokeKey(
  options: ConnectOptions & {id: string},
): Promise<KeyRecord & {already_revoked?: boolean}> {
  return withControl(options, (control) => control.revokeKey(options.id));
}
