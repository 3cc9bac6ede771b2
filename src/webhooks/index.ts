// svc/webhooks: everything a receiver needs to trust a delivery. Pure functions, no I/O.
export * from './errors.js';
export * from './header.js';
export * from './options.js';
export * from './event.js';
export * from './dedup.js';
export * from './verify.js';
export * from './verify-async.js';
