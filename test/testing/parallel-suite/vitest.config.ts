// An 8-file suite as a receiver app's CI runs it: one emulator for the run (the testing entry's global setup),
// an org and a clock per file, run by the repository's test test/testing/parallel-suite.test.ts. Like the app, it
// uses the built package (dist/, as `@svc/cli/testing/vitest` resolves), loaded by Node as it is: vite transforming
// the TypeScript sources again in each of the 4 workers made up most of a run's time.
import {fileURLToPath} from 'node:url';
import {defineConfig} from 'vitest/config';
import {TEST_TIMEOUTS} from '../../../dist/src/testing/vitest-setup.js';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  test: {
    include: ['*.suite.ts'],
    pool: 'forks',
    // The timeouts the docs' config shows, which the schedule walk of every file must hold with 4 workers.
    ...TEST_TIMEOUTS,
    globalSetup: [fileURLToPath(new URL('../../../dist/src/testing/vitest-setup.js', import.meta.url))],
    server: {deps: {external: [/[\\/]dist[\\/]/]}},
  },
});
