// What the delivery browser reads from. Types only, so nothing loads here: the UI imports it, and the UI's
// start-up is measured.
import type {DeliveryDetail, EndpointHealth} from '@svc/client';
import type {Delivery, WebhookEndpoint} from '../schemas/index.js';
import type {EndpointDiagnosis} from './webhooks/diagnose.js';

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
  /** Why the endpoint's deliveries fail, as `svc webhooks diagnose` says it (its attempts where the emulator has them). */
  diagnose?(endpoint: WebhookEndpoint): Promise<EndpointDiagnosis>;
  /** The API's idea of now (ms), for "in 30 seconds": an emulator's clock may be set by hand. */
  now?(): number;
}
