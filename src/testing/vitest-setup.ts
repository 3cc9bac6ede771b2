// A vitest global setup that gives the whole run one emulator and provides every test file a connection to it
// (`inject('svcEmulator')`, which setupSvcOrg reads): the emulator `svc emulator exec` runs the tests under when
// there is one (the seed, SVC_API_URL and SVC_API_KEY are of it), else one of its own on a free port or on
// SVC_TEST_EMULATOR_PORT. The connection holds a token that only makes orgs: the admin token stays here.
//
//   import {TEST_TIMEOUTS} from '@svc/cli/testing/vitest-setup';
//   export default defineConfig({test: {globalSetup: ['@svc/cli/testing/vitest-setup'], ...TEST_TIMEOUTS}});
import type {TestProject} from 'vitest/node';
import type {EmulatorConnection} from './connection.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's emulator, from @svc/cli/testing/vitest-setup. */
    svcEmulator: EmulatorConnection;
  }
}

/**
 * Timeouts for a suite on the shared emulator (spread into vitest's `test` options; setupSvcOrg's hooks use the
 * hook timeout whatever the config says): a test that walks a delivery's whole retry schedule makes nine attempts,
 * each a request, a record and a word from the emulator, and with several workers on a loaded machine that takes
 * several times what it takes alone, past vitest's defaults.
 */
export const TEST_TIMEOUTS = Object.freeze({testTimeout: 30_000, hookTimeout: 60_000});

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // Loaded here, not with the module: a vitest.config importing TEST_TIMEOUTS loads nothing of the emulator.
  const {runEmulator} = await import('./run-emulator.js');
  const run = await runEmulator(process.env);
  project.provide('svcEmulator', run.connection);
  return () => run.stop();
}
