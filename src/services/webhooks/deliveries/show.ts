// `svc webhooks deliveries show`: one delivery with its attempts and event (emulator), or its list record (API).
import {type DeliveryDetail, EmulatorControlError, type SvcClient} from '@svc/client';
import {idShapeText, isId, MAX_DELIVERIES_LISTED} from '../../../definitions.js';
import {UserError, usageError} from '../../../lib/errors.js';
import type {Delivery} from '../../../schemas/index.js';
import {readDeliveryDetail} from './detail.js';

export interface ShowDeliveryOptions {
  /** The command's client: its key names the org, its address the emulator that may hold the detail. */
  client: SvcClient;
  deliveryId: string;
  env: NodeJS.ProcessEnv;
  /** The emulator's data dir, when the one serving the API address is not to be found by its address. */
  dataDir?: string;
}

/** The delivery, the API address it was read from and that API's clock (an emulator's may be moved by hand). */
export interface ShownDeliveryAt {
  shown: ShownDelivery;
  apiUrl: string;
  nowMs: number;
}

/** With `attempts` and `event` null when the API is not an emulator's: /v1 lists deliveries only. */
export interface ShownDelivery {
  delivery: Delivery;
  endpoint_id: string;
  event: unknown | null;
  attempts: DeliveryDetail['attempts'] | null;
}

const LIST_DELIVERIES =
  'Find its id among an endpoint’s deliveries: `svc webhooks list` shows each endpoint’s id for `svc webhooks deliveries WEBHOOK_ID`';

export function checkDeliveryId(deliveryId: string): void {
  if (!isId('delivery', deliveryId)) {
    throw usageError(`that is not a delivery id (they look like ${idShapeText('delivery')})`, [
      'Find the ids with `svc webhooks deliveries WEBHOOK_ID`',
    ]);
  }
}

export async function showDelivery(options: ShowDeliveryOptions): Promise<ShownDeliveryAt> {
  checkDeliveryId(options.deliveryId);
  const {client} = options;
  // The key in use names the org, and proves it still reads, before the emulator shows anything of it.
  const org = await client.getOrg();
  // Its EmulatorControlError reaches the CLI's error mapper like any control command's.
  const detail = await readDeliveryDetail({
    apiUrl: client.apiUrl,
    orgId: org.id,
    deliveryId: options.deliveryId,
    env: options.env,
    dataDir: options.dataDir,
  }).catch((err: unknown) => {
    if (err instanceof EmulatorControlError && err.code === 'not_found') {
      throw new UserError(`no delivery ${options.deliveryId} in this org`, {
        code: 'not_found',
        cause: err,
        suggestions: [LIST_DELIVERIES],
      });
    }
    throw err;
  });
  const at = {apiUrl: client.apiUrl, nowMs: client.serverNowMs()};
  if (detail) return {shown: detail, ...at};
  // The API has no route for one delivery: look for it in each endpoint's list.
  for (const endpoint of await client.listWebhooks()) {
    const delivery = (await client.listDeliveries(endpoint.id)).find((d) => d.id === options.deliveryId);
    if (delivery) return {shown: {delivery, endpoint_id: endpoint.id, event: null, attempts: null}, ...at};
  }
  throw new UserError(
    `no delivery ${options.deliveryId} among the ${MAX_DELIVERIES_LISTED} most recent of any endpoint`,
    {
      code: 'not_found',
      suggestions: [LIST_DELIVERIES],
    },
  );
}
