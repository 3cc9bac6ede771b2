// What the delivery browser reads from, and how it tells failures apart (through the one error mapper). Nothing
// else loads here: the UI imports it, and the UI's start-up is measured.
import type {DeliveryDetail, EndpointHealth} from '@svc/client';
import {toUserError} from '../lib/error-mapper.js';
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

/** The network's own codes, as the one error mapper keeps them: the API could not be reached or did not answer. */
const NETWORK_CODES = new Set(['network_error', 'unreachable', 'timeout', 'system_error']);

/** What went wrong, by the one error mapper (lib/error-mapper.ts): its message and code pick the screen. */
export function describeTrouble(err: unknown): Trouble {
  const e = toUserError(err);
  const message = e.message;
  if (e.exitCode === ExitCode.unauthorized || e.code === 'unauthorized')
    return {kind: 'unauthorized', message};
  if (e.code === 'vault_unavailable') return {kind: 'vault_unavailable', message};
  if (NETWORK_CODES.has(e.code)) return {kind: 'network', message};
  if (e.code === 'not_found') return {kind: 'not_found', message};
  return {kind: 'other', message};
}
