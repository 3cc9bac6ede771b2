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
export * from './dedup.js';
export * from './errors.js';
export * from './event.js';
export * from './header.js';
export * from './options.js';
export * from './verify.js';
export * from './verify-async.js';
