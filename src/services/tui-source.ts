// What the delivery browser reads from, and how it tells failures apart. Nothing here loads anything: the UI
// imports it, and the UI's start-up is measured.
import type {DeliveryDetail, EndpointHealth} from '@svc/client';
import {ExitCode} from '../lib/exit-codes.js';
import type {Delivery, WebhookEndpoint} from '../schemas/index.js';

export interface TuiSource {
  readonly apiUrl: string;
  /** How svc is spelled in the commands the screens suggest (see lib/invocation.ts); `svc` when not given. */
  readonly svc?: string;
  /** Attempt detail and resend are there (the API address is a running emulator's). */
  readonly emulator: boolean;
  listEndpoints(): Promise<WebhookEndpoint[]>;
  listDeliveries(endpointId: string): Promise<Delivery[]>;
  /**
   * How each endpoint's recent deliveries are going, every endpoint in one call; undefined where no such call
   * exists (the service), since asking each endpoint's deliveries on every refresh would not do.
   */
  endpointHealth?(): Promise<EndpointHealth[]>;
  /** The emulator's detail of one delivery; undefined against the service, which lists deliveries only. */
  deliveryDetail?(deliveryId: string): Promise<DeliveryDetail>;
  resend?(deliveryId: string): Promise<DeliveryDetail>;
  /** The API's idea of now (ms), for "in 30 seconds": an emulator's clock may be set by hand. */
  now?(): number;
}

/** How a failed refresh is shown: each kind has its own screen and next step. */
export type TroubleKind = 'unauthorized' | 'vault_unavailable' | 'network' | 'not_found' | 'other';

export interface Trouble {
  kind: TroubleKind;
  message: string;
}

export function describeTrouble(err: unknown): Trouble {
  const e = err as {code?: unknown; status?: unknown; exitCode?: unknown; message?: unknown};
  const message = typeof e?.message === 'string' ? e.message : String(err);
  if (e?.exitCode === ExitCode.unauthorized || e?.status === 401 || e?.code === 'unauthorized')
    return {kind: 'unauthorized', message};
  if (e?.code === 'vault_unavailable' || e?.status === 503) return {kind: 'vault_unavailable', message};
  if (e?.code === 'network_error' || e?.code === 'unreachable' || e?.status === 0 || e?.code === 'timeout')
    return {kind: 'network', message};
  if (e?.code === 'not_found' || e?.status === 404) return {kind: 'not_found', message};
  return {kind: 'other', message};
}
