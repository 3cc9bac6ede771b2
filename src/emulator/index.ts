// `@svc/cli/emulator`: the emulator as a library. `startEmulator(options)` opens storage, serves the API, the
// control surface and the account page, runs the delivery engine, and hands back a `RunningEmulator` that stops
// cleanly (`await using`). This file is the package's face: what it exports, and nothing else; the wiring is in
// `start/` (the options and the running emulator's shape in `start/options.ts`).
//
//   await using emulator = await startEmulator({inMemory: true, port: 0, clock: 'manual'});
//   await emulator.control.createKey({name: 'ci'});
//
// The CLI enters the emulator here too, as every user of the package does (test/architecture holds it).
export {startEmulator} from './start/start.js';
export {EmulatorStartError, type RunningEmulator, type StartEmulatorOptions} from './start/options.js';
export {type AboutOption, StartOptionError, type StartOptionName} from './start-option.js';
export {createApp} from './app.js';
export {EmulatorControl, EmulatorControlError} from '@svc/client';
// Every record a test holds, by name (the control client's answers and requests, the /v1 records).
export type * from '../records.js';
export type {EmulatorContext, EmulatorPlugin} from './context.js';
export {checkEndpointHost, checkEndpointUrl, isPublicAddress, type Resolver} from './net/address-policy.js';
export {OperationError, type Problem} from './operation-error.js';
export {
  CHAOS_EXAMPLE,
  type ChaosSettings,
  ChaosSettingsError,
  describeChaos,
  parseChaosSpec,
} from './delivery/chaos.js';
export {DEFAULT_RATE_LIMIT} from './auth/rate-limiter.js';
export {readStateFile} from './state/file.js';
export {StateFileError} from './state/state-file-error.js';
export type {LoadResult as StateLoadResult} from './state/load.js';
export type {Snapshot} from '../schemas/snapshot.js';
