// `svc emulator keys create`: mints a key through the control surface; the secret is shown exactly once.
import type {CreatedKey} from '../../../../emulator/control-client.js';
import type {KeyExpiryChoice} from '../../../definitions.js';
import {type ConnectOptions, withControl} from '../connect.js';

export interface CreateKeyOptions extends ConnectOptions {
  name: string;
  expires?: KeyExpiryChoice;
  createdBy?: string;
}

export type CreateKeyResult = Pick<CreatedKey, 'id' | 'name' | 'secret' | 'expires_at'>;

export function createKey(options: CreateKeyOptions): Promise<CreateKeyResult> {
  return withControl(options, async (control) => {
    const key = await control.createKey({
      name: options.name,
      expires: options.expires,
      created_by: options.createdBy,
    });
    return {id: key.id, name: key.name, secret: key.secret, expires_at: key.expires_at};
  });
}
