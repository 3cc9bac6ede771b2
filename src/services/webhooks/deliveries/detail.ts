// One delivery's attempts and event, for the org of the key in use: the one source `svc webhooks deliveries
// show`, the TUI and MCP read. The hosted service has no such route; the emulator serving the API address answers
// it on its control surface, reached with the admin token of its emulator.json (never with an API key). That
// token sees every org, so the org is checked here, once, for every reader.
import {type DeliveryDetail, EmulatorControlError, type FetchLike} from '@svc/client';
import {isId} from '../../../definitions.js';
import {emulatorControlFor} from '../../emulator/for-api-url.js';

export interface DeliveryDetailRequest {
  /** The API address in use; its emulator is found by the emulator.json that names it. */
  apiUrl: string;
  /** The org of the key in use: another org's delivery is answered as unknown. */
  orgId: string;
  deliveryId: string;
  env: NodeJS.ProcessEnv;
  /** The emulator's data dir (default: SVC_EMULATOR_DATA_DIR, then the user data dir). */
  dataDir?: string;
  fetch?: FetchLike;
}

/** What the emulator says of an id it does not know; another org's delivery gets the same answer. */
function unknownDelivery(): EmulatorControlError {
  return new EmulatorControlError('no delivery with this id', 404, 'not_found');
}

/**
 * Finds the emulator serving `apiUrl`, reads the delivery's detail and checks that it belongs to `orgId`.
 * Undefined when no running emulator serves the address (the service lists deliveries only); an
 * EmulatorControlError otherwise, `not_found` alike for an unknown id and for another org's delivery.
 */
export async function readDeliveryDetail(
  request: DeliveryDetailRequest,
): Promise<DeliveryDetail | undefined> {
  const read = await deliveryDetailReader(request);
  return read?.(request.deliveryId);
}

/**
 * The same reads for many deliveries of one org, the emulator found once: undefined when no running emulator
 * serves `apiUrl`, else a reader that checks the org of each delivery it reads.
 */
export async function deliveryDetailReader(
  request: Omit<DeliveryDetailRequest, 'deliveryId'>,
): Promise<((deliveryId: string) => Promise<DeliveryDetail>) | undefined> {
  const control = await emulatorControlFor(request.apiUrl, request);
  if (!control) return undefined;
  return async (deliveryId) => {
    if (!isId('delivery', deliveryId)) throw unknownDelivery();
    const detail = await control.delivery(deliveryId);
    if (detail.event.org_id !== request.orgId) throw unknownDelivery();
    return detail;
  };
}
