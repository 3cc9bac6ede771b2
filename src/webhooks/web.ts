// @svc/webhooks/web: the receiver library without node:crypto, for edge runtimes and browsers.
export * from './errors.js';
export * from './header.js';
export * from './options.js';
export * from './event.js';
export * from './dedup.js';
export * from './verify-async.js';
