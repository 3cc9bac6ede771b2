// `svc emulator keys create`: mints a key through the control surface; the secret is shown exactly once.
import type {CreatedKey} from '../../../../emulator/control-client.js';
import {type ConnectOptions, withControl} from '../connect.js';

export interface CreateKeyOptions extends ConnectOptions {
  name: string;
  expires?: '30' | '90' | '365' | 'never';
  createdBy?: string;
}

export type CreateKeyResult = Pick<CreatedKey, 'id' | 'name' | 'secret' | 'expires_at'>;

export interface CreatedKeyAt {
  key: CreateKeyResult;
  /** The emulator's API address: where the key works. */
  apiUrl: string;
}

export function createKey(options: CreateKeyOptions): Promise<CreatedKeyAt> {
  return withControl(options, async (control, info) => {
    const key = await control.createKey({
      name: options.name,
      expires: options.expires,
      created_by: options.createdBy,
    });
    return {
      key: {id: key.id, name: key.name, secret: key.secret, expires_at: key.expires_at},
      apiUrl: info.api_url,
    };
  });
}
