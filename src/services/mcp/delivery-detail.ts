// MCP's get_delivery_attempts: one delivery with its attempts and its event, read like every other reader does
// (services/webhooks/deliveries/detail.ts), its failures told as the next steps of an agent.
import {type DeliveryDetail, EmulatorControlError, type FetchLike} from '@svc/client';
import {isId} from '../../definitions.js';
import {noEmulatorError, UserError} from '../../lib/errors.js';
import {readDeliveryDetail} from '../webhooks/deliveries/detail.js';

export type {DeliveryDetail};

export function notEmulatorError(apiUrl: string): UserError {
  return noEmulatorError(
    `attempt detail comes from the svc emulator, and no running emulator serves ${apiUrl}`,
    [
      'Use list_deliveries for each delivery’s attempt count and last status code',
      'Against the emulator: set SVC_EMULATOR_DATA_DIR to the data dir it was started with',
    ],
  );
}

function notFound(id: string): UserError {
  return new UserError(`no delivery ${id} in this org`, {
    code: 'not_found',
    suggestions: ['Take the id from list_deliveries'],
  });
}

/** The delivery's detail for the session's org (readDeliveryDetail), with failures told as an agent's next steps. */
export async function fetchDeliveryDetail(options: {
  apiUrl: string;
  orgId: string;
  deliveryId: string;
  env: NodeJS.ProcessEnv;
  fetch?: FetchLike;
}): Promise<DeliveryDetail> {
  if (!isId('delivery', options.deliveryId)) throw notFound(options.deliveryId);
  let detail: DeliveryDetail | undefined;
  try {
    detail = await readDeliveryDetail(options);
  } catch (err) {
    if (err instanceof EmulatorControlError && err.status === 404) throw notFound(options.deliveryId);
    if (err instanceof EmulatorControlError) {
      throw new UserError(err.message, {
        code: err.code,
        suggestions: ['Check that the emulator is still running: `svc emulator status`'],
      });
    }
    throw err;
  }
  if (!detail) throw notEmulatorError(options.apiUrl);
  return detail;
}
