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
import {createOrgFixture, type OrgFixture, type OrgFixtureOptions} from './index.js';
import './vitest-setup.js';

export * from './index.js';

/**
 * Registers the file's org fixture: made in beforeAll on the emulator the global setup provides, disposed of in
 * afterAll. Returns a getter for use inside tests.
 */
export function setupSvcOrg(options: OrgFixtureOptions = {}): () => OrgFixture {
  let fixture: OrgFixture | undefined;
  beforeAll(async () => {
    fixture = await createOrgFixture(inject('svcEmulator'), options);
  });
  afterAll(async () => {
    await fixture?.dispose();
    fixture = undefined;
  });
  return () => {
    if (!fixture)
      throw new Error('setupSvcOrg: the fixture exists only inside the tests of the file that made it');
    return fixture;
  };
}
