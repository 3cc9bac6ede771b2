// The service's definitions, each in one place: identifier shapes, allowed values, limits, error codes.
// The zod schemas, the emulator, the client, the receiver library and the CLI import them from here. This
// module loads nothing (no zod, no node: modules), so the receiver library and the CLI's start-up stay lean.
// Each kind of definition has a module of its own in definitions/, which loads nothing either.
export * from './definitions/ids-and-secrets.js';
export * from './definitions/allowed-values.js';
export * from './definitions/limits.js';
export * from './definitions/text.js';
export * from './definitions/errors.js';
