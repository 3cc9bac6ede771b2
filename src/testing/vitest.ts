// The vitest helper: one call at the top of a test file gives it an org of its own (own clock, key, endpoint and a
// real receiver) on the run's emulator, made before the file's tests and deleted after them.
//
//   import {setupSvcOrg} from '@svc/cli/testing/vitest';
//   const svc = setupSvcOrg({events: ['sandbox.error']});
//   it('retries after 30 s', async () => {
//     const {control, receiver} = svc();
//     …
//   });
import {afterAll, beforeAll, inject} from 'vitest';
import {
  createOrgFixture,
  type OrgFixture,
  type OrgFixtureOptions,
  startTestEmulator,
  type TestEmulator,
} from './index.js';
import {TEST_TIMEOUTS} from './vitest-setup.js';

export * from './index.js';

/**
 * Registers the file's org fixture: made in beforeAll on the emulator the global setup provides (without the
 * global setup, on an emulator of the file's own), disposed of in afterAll, each hook with the hook timeout of
 * TEST_TIMEOUTS whatever the config says. Returns a getter for use in tests.
 */
export function setupSvcOrg(options: OrgFixtureOptions = {}): () => OrgFixture {
  let fixture: OrgFixture | undefined;
  let own: TestEmulator | undefined;
  beforeAll(async () => {
    const provided = inject('svcEmulator') as ReturnType<typeof inject<'svcEmulator'>> | undefined;
    if (!provided) own = await startTestEmulator();
    fixture = await createOrgFixture(provided ?? (own as TestEmulator).connection, options);
  }, TEST_TIMEOUTS.hookTimeout);
  afterAll(async () => {
    await fixture?.dispose();
    fixture = undefined;
    await own?.stop();
    own = undefined;
  }, TEST_TIMEOUTS.hookTimeout);
  return () => {
    if (!fixture)
      throw new Error('setupSvcOrg: the fixture exists only inside the tests of the file that made it');
    return fixture;
  };
}
