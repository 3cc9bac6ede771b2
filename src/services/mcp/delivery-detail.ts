// One delivery with its attempts and its event, from the emulator that serves the API address in use.
// The hosted service has no such route; the emulator keeps every attempt and answers it on its control
// surface, reached with the admin token from the running emulator's emulator.json, never with an API key.
import {EmulatorControlError} from '../../client/emulator-control.js';
import type {DeliveryDetail} from '../../client/emulator-control.js';
import {isId} from '../../definitions.js';
import {UserError} from '../../lib/errors.js';
import {emulatorControlFor} from '../emulator/for-api-url.js';

export type {DeliveryDetail};

export function notEmulatorError(apiUrl: string): UserError {
  return new UserError(
    `attempt detail comes from the svc emulator, and no running emulator serves ${apiUrl}`,
    {
      code: 'emulator_not_running',
      suggestions: [
        'Use list_deliveries for each delivery’s attempt count and last status code',
        'Against the emulator: set SVC_EMULATOR_DATA_DIR to the data dir it was started with',
      ],
    },
  );
}

function notFound(id: string): UserError {
  return new UserError(`no delivery ${id} in this org`, {
    code: 'not_found',
    suggestions: ['Take the id from list_deliveries'],
  });
}

function orgOf(event: unknown): unknown {
  return typeof event === 'object' && event !== null ? (event as {org_id?: unknown}).org_id : undefined;
}

/** Finds the emulator whose emulator.json names `apiUrl` and asks it for the delivery. */
export async function fetchDeliveryDetail(options: {
  apiUrl: string;
  orgId: string;
  deliveryId: string;
  env: NodeJS.ProcessEnv;
  fetch?: typeof fetch;
}): Promise<DeliveryDetail> {
  if (!isId('delivery', options.deliveryId)) throw notFound(options.deliveryId);
  const control = await emulatorControlFor(options.apiUrl, {env: options.env, fetch: options.fetch});
  if (!control) throw notEmulatorError(options.apiUrl);
  let detail: DeliveryDetail;
  try {
    detail = await control.delivery(options.deliveryId);
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
  // The admin token sees every org; the key in use sees only its own.
  if (orgOf(detail.event) !== options.orgId) throw notFound(options.deliveryId);
  return detail;
}
