// A one-file suite run by test/testing/exec-global-setup.test.ts under `svc emulator exec`, set up as the docs
// show a receiver app's: the testing entry's global setup and its timeouts, from the built package.
import {fileURLToPath} from 'node:url';
import {defineConfig} from 'vitest/config';
import {TEST_TIMEOUTS} from '../../../dist/src/testing/vitest-setup.js';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  test: {
    include: ['*.suite.ts'],
    pool: 'forks',
    ...TEST_TIMEOUTS,
    globalSetup: [fileURLToPath(new URL('../../../dist/src/testing/vitest-setup.js', import.meta.url))],
    server: {deps: {external: [/[\\/]dist[\\/]/]}},
  },
});
