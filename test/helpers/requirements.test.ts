// The full mode as a person or CI meets it: vitest itself, run on one small test file, stops before any test when
// the machine lacks what the suite needs, and says what to install; outside the full mode the same run passes.
import {spawn} from 'node:child_process';
import {fileURLToPath} from 'node:url';
import {describe, expect, it} from 'vitest';
import {CHROMIUM, POSTGRES, unmet} from './requirements.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const VITEST = fileURLToPath(new URL('../../node_modules/vitest/vitest.mjs', import.meta.url));
/** A quick test file that needs nothing from the machine. */
const SMALL_FILE = 'test/webhooks/event.test.ts';
/** A file whose tests all need PostgreSQL. */
const NEEDS_POSTGRES = 'test/emulator/multi-process/shared-state.test.ts';

function vitest(
  env: NodeJS.ProcessEnv,
  args: string[] = [SMALL_FILE],
): Promise<{code: number | null; output: string}> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [VITEST, 'run', ...args], {
      cwd: ROOT,
      env: {PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', ...env},
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => {
      output += d;
    });
    child.stderr.on('data', (d) => {
      output += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({code, output});
    });
  });
}

describe('the full test mode', {timeout: 90_000}, () => {
  it('stops the run before any test when a requirement is missing, naming it and how to get it', async () => {
    const r = await vitest({
      SVC_TEST_FULL: '1',
      SVC_CHROMIUM_PATH: '/nonexistent/chromium',
      SVC_TEST_DATABASE_URL: '',
    });
    expect(r.code).toBe(1);
    expect(r.output).toContain('The full test run (CI=true or SVC_TEST_FULL=1) runs every test');
    expect(r.output).toContain(`PostgreSQL: SVC_TEST_DATABASE_URL is not set. To fix: ${POSTGRES.install}`);
    expect(r.output).toContain(`Chromium: no Chromium at /nonexistent/chromium. To fix: ${CHROMIUM.install}`);
    expect(r.output).not.toMatch(/Tests\s+\d+ passed/);
  });

  it('is on in CI as well', async () => {
    const r = await vitest({CI: 'true', SVC_CHROMIUM_PATH: '/nonexistent/chromium'});
    expect(r.code).toBe(1);
    expect(r.output).toContain('Chromium: no Chromium at /nonexistent/chromium');
  });

  it('outside it, runs what it can and shows what it could not as skipped, with the reason', async () => {
    const r = await vitest({SVC_CHROMIUM_PATH: '/nonexistent/chromium', SVC_TEST_DATABASE_URL: ''}, [
      SMALL_FILE,
      NEEDS_POSTGRES,
      '--reporter=verbose',
    ]);
    expect(r.output).toMatch(/Tests\s+\d+ passed \| \d+ skipped/);
    expect(r.output).toContain(
      'emulator processes sharing one PostgreSQL [skipped: needs PostgreSQL: SVC_TEST_DATABASE_URL is not set]',
    );
    expect(r.code).toBe(0);
  });
});

describe('a requirement not met', () => {
  it('gives the reason that goes into a skipped test name', () => {
    const missing = {name: 'thing', missing: () => 'not here', install: 'get it'};
    const present = {name: 'other', missing: () => undefined, install: 'n/a'};
    expect(unmet([present])).toBeUndefined();
    expect(unmet([missing, present, {...missing, name: 'more'}])).toBe(
      'needs thing: not here; needs more: not here',
    );
  });
});
