import {fileURLToPath} from 'node:url';
import {defineConfig} from 'vitest/config';

const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  // The libraries from their sources (as tsconfig's paths do): tests and the code under test share one copy.
  resolve: {
    alias: [
      {find: /^@svc\/client$/, replacement: source('./src/client/index.ts')},
      {find: /^@svc\/webhooks$/, replacement: source('./src/webhooks/index.ts')},
      {find: /^@svc\/webhooks\/(node|express|fetch|web)$/, replacement: source('./src/webhooks/$1.ts')},
    ],
  },
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
