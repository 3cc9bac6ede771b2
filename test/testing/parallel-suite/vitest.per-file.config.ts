// The same 8-file suite with an emulator per file (no global setup: setupSvcOrg starts one for each file), the
// shape the shared emulator replaces, measured beside it by bench/test-suite.bench.js. The built package, loaded by
// Node as it is, as in vitest.config.ts.
import {fileURLToPath} from 'node:url';
import {defineConfig} from 'vitest/config';
import {TEST_TIMEOUTS} from '../../../dist/src/testing/vitest-setup.js';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  test: {
    include: ['*.suite.ts'],
    pool: 'forks',
    ...TEST_TIMEOUTS,
    server: {deps: {external: [/[\\/]dist[\\/]/]}},
  },
});
