// The emulator's ids and secrets come from the one generator of the service's shapes (src/ids.ts).
export * from '../src/ids.js';
