// How the delivery browser shows a failed read or resend: which screen (each kind has its own, with its next
// step) and the words, both from the one error mapper (lib/error-mapper.ts), so it says what every command says.
import {NETWORK_ERROR_CODES, toUserError} from '../../lib/error-mapper.js';
import {NO_EMULATOR_CODE} from '../../lib/errors.js';
import {ExitCode} from '../../lib/exit-codes.js';

/** How a failed refresh is shown: each kind has its own screen and next step. */
export type TroubleKind =
  | 'unauthorized'
  | 'vault_unavailable'
  | 'network'
  | 'emulator_stopped'
  | 'not_found'
  | 'other';

export interface Trouble {
  kind: TroubleKind;
  message: string;
}

/** What went wrong, by the one error mapper: its message and code pick the screen. */
export function describeTrouble(err: unknown): Trouble {
  const e = toUserError(err);
  const message = e.message;
  if (e.exitCode === ExitCode.unauthorized || e.code === 'unauthorized')
    return {kind: 'unauthorized', message};
  if (e.code === 'vault_unavailable') return {kind: 'vault_unavailable', message};
  if (e.code === NO_EMULATOR_CODE) return {kind: 'emulator_stopped', message};
  if (NETWORK_ERROR_CODES.has(e.code)) return {kind: 'network', message};
  if (e.code === 'not_found') return {kind: 'not_found', message};
  return {kind: 'other', message};
}
