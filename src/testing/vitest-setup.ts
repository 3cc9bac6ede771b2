// A vitest global setup that starts one emulator for the whole run and provides its connection to every test
// file (`inject('svcEmulator')`, which setupSvcOrg reads). In vitest.config: `globalSetup: ['@svc/cli/testing/vitest-setup']`.
import type {TestProject} from 'vitest/node';
import {type EmulatorConnection, startTestEmulator} from './index.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's emulator, started by @svc/cli/testing/vitest-setup. */
    svcEmulator: EmulatorConnection;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const emulator = await startTestEmulator();
  project.provide('svcEmulator', emulator.connection);
  return () => emulator.stop();
}
