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
// This file is the package's face: the names its README lists, and nothing else (helpers stay inside): every
// name of the web entry, and those that sign or verify synchronously on node:crypto.
export * from './web.js';
export type {SignRequest, WebhookSignerOptions} from './options.js';
export {constructEvent, signPayload, verifySignature, WebhookSigner, WebhookVerifier} from './verify.js';
