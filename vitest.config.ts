import {fileURLToPath} from 'node:url';
import {defineConfig} from 'vitest/config';

const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * `npm run test:quick` (SVC_TEST_QUICK=1): the inner loop, under a minute. The libraries, the CLI's plumbing and
 * views, the schemas, the contract's mock side and the import rules: nothing that spawns a process, drives a
 * browser or a terminal, or needs PostgreSQL (its cases show as skipped). `npm test` runs everything.
 */
const QUICK = process.env.SVC_TEST_QUICK === '1';
const QUICK_FOLDERS = ['architecture', 'auth', 'client', 'docs', 'lib', 'schemas', 'ui', 'webhooks'];
const QUICK_INCLUDE = [
  `test/{${QUICK_FOLDERS.join(',')}}/**/*.test.{ts,tsx}`,
  'test/services/**/*.test.ts',
  'test/contract/emulator.test.ts',
];
/** In the quick folders, the files that spawn the CLI or vitest itself. */
const QUICK_EXCLUDE = ['test/services/tui-source.test.ts', 'test/docs/command-reference.test.ts'];

/**
 * Files that patch the process's globals by design run each in a fresh process: msw's interceptors replace
 * `globalThis.fetch` for the whole file. Every other file shares its worker with the files before it (no new
 * process, no second import of the emulator per file), and test/setup/process-hygiene.ts fails a file that leaves
 * the process changed.
 */
const ISOLATED = [
  'test/auth/login-service.test.ts',
  'test/client/client.test.ts',
  'test/client/fixtures.test.ts',
  'test/contract/mock.test.ts',
  'test/e2e/cli-auth.test.ts',
];

const inQuickFolder = (file: string) => QUICK_FOLDERS.includes(file.split('/')[1] ?? '');
const INCLUDE = QUICK ? QUICK_INCLUDE : ['test/**/*.test.{ts,tsx}'];
const EXCLUDE = QUICK ? ['**/node_modules/**', ...QUICK_EXCLUDE] : ['**/node_modules/**'];

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
    ...(QUICK ? {env: {SVC_TEST_DATABASE_URL: ''}} : {}),
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // 2 cores, 3 workers: a third file runs while another waits on a real deadline (the 10 s attempt budget, a
    // relay lease, a receiver's slow answer); a fourth only fights over CPU. On Node 24, a CI-mode run of the whole
    // suite took 250 s with 3 workers, 270-278 s with 2 (two runs) and 265 s with 4.
    maxWorkers: 3,
    // The full mode (CI=true or SVC_TEST_FULL=1) stops here when the machine lacks what a test needs.
    globalSetup: QUICK ? [] : ['test/setup/requirements.ts'],
    // Tests of the built CLI refuse a dist/ older than the sources; every file leaves the process as it found it.
    setupFiles: ['test/setup/fresh-build.ts', 'test/setup/process-hygiene.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'isolated',
          include: QUICK ? ISOLATED.filter(inQuickFolder) : ISOLATED,
          exclude: EXCLUDE,
          isolate: true,
        },
      },
      {
        extends: true,
        test: {name: 'shared', include: INCLUDE, exclude: [...EXCLUDE, ...ISOLATED], isolate: false},
      },
    ],
  },
});
