// `svc emulator keys create`: mints a key through the control surface; the secret is shown exactly once.
import type {CreatedKey} from '@svc/client';
import {toUserError} from '../../../lib/error-mapper.js';
import {currentSvcCommand} from '../../../lib/invocation.js';
import {dataDirArg} from '../../../lib/hints.js';
import type {KeyExpiryChoice} from '../../../definitions.js';
import {type ConnectOptions, withControl} from '../connect.js';

export interface CreateKeyOptions extends ConnectOptions {
  name: string;
  expires?: KeyExpiryChoice;
  createdBy?: string;
  /** The org to act on (`org_…`); default: the emulator's default org. */
  org?: string;
}

export type CreateKeyResult = Pick<CreatedKey, 'id' | 'name' | 'secret' | 'expires_at'>;

export interface CreatedKeyAt {
  key: CreateKeyResult;
  /** The emulator's API address: where the key works. */
  apiUrl: string;
}

export async function createKey(options: CreateKeyOptions): Promise<CreatedKeyAt> {
  try {
    return await mintKey(options);
  } catch (err) {
    // At the limit of active keys the way out is revoking one: a step for the mapper to give with the
    // emulator's own message.
    const svc = currentSvcCommand(options.env);
    const dir = dataDirArg(options.dataDir);
    throw toUserError(err, {
      conflict: [
        `Revoke a key you no longer use: \`${svc} keys list\` shows their ids, \`${svc} emulator keys revoke\` followed by one revokes it${dir ? ` (with${dir})` : ''}`,
      ],
    });
  }
}

function mintKey(options: CreateKeyOptions): Promise<CreatedKeyAt> {
  return withControl(options, async (control, info) => {
    const key = await control.createKey({
      name: options.name,
      expires: options.expires,
      created_by: options.createdBy,
      org_id: options.org,
    });
    return {
      key: {id: key.id, name: key.name, secret: key.secret, expires_at: key.expires_at},
      apiUrl: info.api_url,
    };
  });
}
