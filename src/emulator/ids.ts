// Fresh secrets in the service's shapes (src/definitions.ts), from the OS CSPRNG: the ones only the emulator makes.
// Ids come from the one generator the CLI uses too (src/ids.ts: `newId(kind)`), imported from there.
import {randomBytes} from 'node:crypto';
import {
  API_KEY_SECRET_BODY_LENGTH,
  API_KEY_SECRET_PREFIX,
  SANDBOX_LINK_TOKEN_BYTES,
  SIGNING_SECRET_BYTES,
  SIGNING_SECRET_PREFIX,
} from '../definitions.js';
import {base62} from '../ids.js';

/**
 * @deprecated Ids are made with `newId(kind)` of src/ids.ts, which every emulator file uses. This alias (an id by
 * its prefix) is kept only for callers outside the emulator (test/helpers/msw-handlers.ts, test/contract/cases.ts,
 * bench/) until they import src/ids.ts themselves.
 */
export {newIdWithPrefix as newId} from '../ids.js';

export function newApiKeySecret(): string {
  return `${API_KEY_SECRET_PREFIX}${base62(API_KEY_SECRET_BODY_LENGTH)}`;
}

export function newSigningSecret(): string {
  return `${SIGNING_SECRET_PREFIX}${randomBytes(SIGNING_SECRET_BYTES).toString('base64')}`;
}

/** The token in a sandbox link's URL: anyone holding the URL can use the link, so it is as long as a key. */
export function newLinkToken(): string {
  return randomBytes(SANDBOX_LINK_TOKEN_BYTES).toString('base64url');
}
