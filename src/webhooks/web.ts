// @svc/webhooks/web: the receiver library without node:crypto, for edge runtimes and browsers. The names of the
// main entry but those that sign or verify synchronously (they need node:crypto), and nothing else.
export {
  DEFAULT_DEDUP_TTL_MS,
  type DeduplicationStore,
  EventDeduplicator,
  type EventDeduplicatorOptions,
  MemoryDeduplicationStore,
  type MemoryDeduplicationStoreOptions,
  type OnceResult,
} from './dedup.js';
export {
  isWebhookVerificationError,
  VERIFICATION_FAILURE_REASONS,
  type VerificationFailureReason,
  WebhookVerificationError,
  type WebhookVerificationErrorDetails,
} from './errors.js';
export {
  type EventType,
  isWebhookEventType,
  parseWebhookEvent,
  WEBHOOK_EVENT_TYPES,
  type WebhookEvent,
} from './event.js';
export {type ParsedSignatureHeader, parseSignatureHeader, type SignatureHeaderInput} from './header.js';
export {
  DEFAULT_TOLERANCE_SECONDS,
  type SignPayloadOptions,
  type VerifiedSignature,
  type VerifyRequest,
  type VerifySignatureOptions,
  type WebhookPayload,
  type WebhookVerifierOptions,
} from './options.js';
export {
  AsyncWebhookVerifier,
  constructEventAsync,
  signPayloadAsync,
  verifySignatureAsync,
} from './verify-async.js';
