// One delivery with its attempts and its event, from the emulator that serves the API address in use.
// The hosted service has no such route; the emulator keeps every attempt and answers it on its control
// surface, which takes the admin token from the running emulator's emulator.json, never an API key.
import {EmulatorControl, EmulatorControlError} from '../../../emulator/control-client.js';
import {isProcessAlive, readRuntimeFile} from '../../../emulator/runtime-file.js';
import {isId} from '../../definitions.js';
import {UserError} from '../../lib/errors.js';
import {emulatorDataDir} from '../../lib/paths.js';
import type {Delivery, SvcEvent} from '../../schemas/index.js';

export interface DeliveryAttempt {
  attempt: number;
  started_at: string;
  /** The `t` of the attempt's signature; null when none could be made. */
  signature_t: number | null;
  trigger: string;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  response_body: string | null;
}

export interface DeliveryDetail {
  delivery: Delivery;
  endpoint_id?: string;
  event: SvcEvent;
  attempts: DeliveryAttempt[];
}

function sameAddress(a: string, b: string): boolean {
  return a.replace(/\/+$/, '') === b.replace(/\/+$/, '');
}

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

/** Finds the emulator whose emulator.json names `apiUrl` and asks it for the delivery. */
export async function fetchDeliveryDetail(options: {
  apiUrl: string;
  orgId: string;
  deliveryId: string;
  env: NodeJS.ProcessEnv;
  fetch?: typeof fetch;
}): Promise<DeliveryDetail> {
  if (!isId('delivery', options.deliveryId)) {
    throw new UserError('that is not a delivery id (they look like dlv_ followed by 24 letters and digits)', {
      code: 'invalid_request',
      suggestions: ['Take the id from list_deliveries'],
    });
  }
  const info = await readRuntimeFile(emulatorDataDir(options.env));
  if (!info || !isProcessAlive(info.pid) || !sameAddress(info.api_url, options.apiUrl)) {
    throw notEmulatorError(options.apiUrl);
  }
  const control = new EmulatorControl({
    url: info.api_url,
    adminToken: info.admin_token,
    fetch: options.fetch,
  });
  let detail: DeliveryDetail;
  try {
    detail = await control.call<DeliveryDetail>(
      'GET',
      `/_emulator/deliveries/${encodeURIComponent(options.deliveryId)}`,
    );
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
  if (detail.event?.org_id !== options.orgId) throw notFound(options.deliveryId);
  return detail;
}

function notFound(id: string): UserError {
  return new UserError(`no delivery ${id} in this org`, {
    code: 'not_found',
    suggestions: ['Take the id from list_deliveries'],
  });
}
