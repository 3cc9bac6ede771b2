import {defineConfig} from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.{ts,tsx}'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // 2 cores: more workers only fight over CPU with the emulators they start.
    maxWorkers: 2,
    // The full mode (CI=true or SVC_TEST_FULL=1) stops here when the machine lacks what a test needs.
    globalSetup: ['test/setup/requirements.ts'],
    // Tests of the built CLI refuse a dist/ older than the sources.
    setupFiles: ['test/setup/fresh-build.ts'],
  },
});
