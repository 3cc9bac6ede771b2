// @svc/webhooks: everything a receiver needs to trust a delivery. Pure functions, no I/O.
//
//   const verifier = new WebhookVerifier({secret: process.env.SVC_WEBHOOK_SECRET});
//   const dedup = new EventDeduplicator();
//   app.post('/hooks', express.raw({type: 'application/json', limit: '1mb'}), async (req, res) => {
//     const event = verifier.constructEvent({payload: req.body, header: req.headers['svc-signature']});
//     await dedup.once(event.id, () => handle(event));   // the same event can arrive twice
//     res.sendStatus(200);
//   });
//
// Runtimes without node:crypto import '@svc/webhooks/web' (AsyncWebhookVerifier, verifySignatureAsync).
// This file is the package's face: the names its README lists, and nothing else (helpers stay inside).
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
  type SignRequest,
  type VerifiedSignature,
  type VerifyRequest,
  type VerifySignatureOptions,
  type WebhookPayload,
  type WebhookSignerOptions,
  type WebhookVerifierOptions,
} from './options.js';
export {constructEvent, signPayload, verifySignature, WebhookSigner, WebhookVerifier} from './verify.js';
export {
  AsyncWebhookVerifier,
  constructEventAsync,
  signPayloadAsync,
  verifySignatureAsync,
} from './verify-async.js';
