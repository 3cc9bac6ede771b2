// An 8-file suite as a receiver app's CI runs it: one emulator for the run (the testing entry's global setup),
// an org and a clock per file, run by the repository's test test/testing/parallel-suite.test.ts.
import {fileURLToPath} from 'node:url';
import {defineConfig} from 'vitest/config';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  test: {
    include: ['*.suite.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    globalSetup: [fileURLToPath(new URL('../../../src/testing/vitest-setup.ts', import.meta.url))],
  },
});
