// The delivery engine's public surface.
export {BlockedAddressError, isPublicAddress, type Resolver} from '../net/address-policy.js';
export {createDeliveryAgent} from './delivery-agent.js';
export {buildEvent, recordEvent} from './events.js';
export {
  createDeliveryPlugin,
  type DeliveryEngine,
  type DeliveryPlugin,
  type DeliveryPluginOptions,
} from './plugin.js';
export type {RelayReport} from '../../schemas/emulator.js';
export {type RelayAnswer, RelayHub, type RelayDelivery} from './relay-hub.js';
export {
  DELIVERY_TIMEOUT_MS,
  MAX_DELIVERY_ATTEMPTS,
  RESPONSE_BODY_LIMIT_BYTES,
  RETENTION_MS,
  RETRY_WAITS_MS,
  retryDelayAfter,
} from './retry-policy.js';
export {type AttemptResult, sendAttempt} from './sender.js';
export {DeliveryWorker, type DeliveryWorkerOptions} from './worker.js';
