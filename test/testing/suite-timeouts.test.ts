// Suite defaults that hold under load (issue 42, finding 5): walking a delivery's retry schedule took 2.2–6.9 s
// per file with 4 workers on a loaded machine, past vitest's 5 s default, and the docs' example set no timeout. The
// global setup's entry exports timeouts for vitest's `test` options, the docs' config spreads them, and the
// repository's own suites on the testing entry run with them (parallel-suite.test.ts walks the whole schedule in
// 8 files at once under them).
import {readFileSync} from 'node:fs';
import {fileURLToPath} from 'node:url';
import {describe, expect, it} from 'vitest';
import {TEST_TIMEOUTS} from '../../src/testing/vitest-setup.js';

const read = (path: string) => readFileSync(fileURLToPath(new URL(path, import.meta.url)), 'utf8');

/** vitest's own defaults (its documentation: testTimeout 5 s, hookTimeout 10 s). */
const VITEST_DEFAULTS = {testTimeout: 5_000, hookTimeout: 10_000};

describe('the suite timeouts of @svc/cli/testing/vitest-setup', () => {
  it("are for vitest's test options, several times vitest's defaults", () => {
    expect(Object.keys(TEST_TIMEOUTS).sort()).toEqual(['hookTimeout', 'testTimeout']);
    expect(TEST_TIMEOUTS.testTimeout).toBeGreaterThanOrEqual(4 * VITEST_DEFAULTS.testTimeout);
    expect(TEST_TIMEOUTS.hookTimeout).toBeGreaterThanOrEqual(4 * VITEST_DEFAULTS.hookTimeout);
  });

  it("are in the docs' vitest config, beside the global setup", () => {
    const blocks = [...read('../../docs/emulator.md').matchAll(/```ts\n([\s\S]*?)```/g)].map(
      (m) => m[1] as string,
    );
    const config = blocks.find((b) => b.includes("globalSetup: ['@svc/cli/testing/vitest-setup']"));
    expect(config).toBeDefined();
    expect(config).toContain("import {TEST_TIMEOUTS} from '@svc/cli/testing/vitest-setup';");
    expect(config).toContain('...TEST_TIMEOUTS');
  });

  it("are what the repository's own suites on the testing entry run with", () => {
    for (const config of ['./parallel-suite/vitest.config.ts', './exec-suite/vitest.config.ts']) {
      expect(read(config), config).toContain('...TEST_TIMEOUTS');
    }
  });
});
