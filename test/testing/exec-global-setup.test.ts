// `svc emulator exec -- vitest run` with the testing entry's global setup runs one emulator (issue 42, finding 4):
// the global setup uses the one exec started (SVC_EMULATOR_DATA_DIR serving SVC_API_URL) instead of its own, so
// the seed, SVC_API_URL, SVC_API_KEY and the files' orgs are on it, on the port given to exec with --port. A
// SVC_TEST_EMULATOR_PORT that names another port is refused, naming the way out.
import {createServer} from 'node:net';
import {mkdtemp, readFile, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {fileURLToPath} from 'node:url';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {API_KEY_SECRET_BODY_LENGTH, API_KEY_SECRET_PREFIX} from '../../src/definitions.js';
import {assertFreshBuild} from '../helpers/fresh-build.js';
import {runCommand} from '../helpers/run-cli.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CONFIG = fileURLToPath(new URL('./exec-suite/vitest.config.ts', import.meta.url));
const VITEST = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');
const SEED_KEY = `${API_KEY_SECRET_PREFIX}${'s'.repeat(API_KEY_SECRET_BODY_LENGTH)}`;

let scratch: string;
beforeAll(async () => {
  assertFreshBuild();
  scratch = await mkdtemp(join(tmpdir(), 'svc-exec-setup-'));
});
afterAll(async () => {
  await rm(scratch, {recursive: true, force: true});
});

/** A port nothing listens on now (the kernel's pick, closed again). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const {port} = server.address() as {port: number};
      server.close(() => resolve(port));
    });
  });
}

interface SuiteReport {
  numPassedTests: number;
  numFailedTests: number;
  testResults: {message: string; assertionResults: {title: string; failureMessages: string[]}[]}[];
}

describe('svc emulator exec -- vitest run, with the global setup', {timeout: 180_000}, () => {
  it('runs one emulator: the seed, SVC_API_URL, SVC_API_KEY and the fixture org are on it, on --port', async () => {
    const seed = join(scratch, 'seed.json');
    await writeFile(
      seed,
      JSON.stringify({
        svc_emulator_seed: 1,
        orgs: [{name: 'seeded', keys: [{name: 'ci', secret: SEED_KEY, expires: 'never'}]}],
      }),
    );
    const report = join(scratch, 'report.json');
    const port = await freePort();
    const r = await runCommand(
      [
        'emulator',
        'exec',
        '--port',
        String(port),
        '--clock',
        'manual',
        '--allow-local-endpoints',
        '--seed',
        seed,
        '--',
        process.execPath,
        VITEST,
        'run',
        '--config',
        CONFIG,
        '--reporter=json',
        `--outputFile=${report}`,
      ],
      {
        env: {
          TMPDIR: scratch,
          SEED_KEY,
          EXPECTED_PORT: String(port),
          CI: '1',
          SVC_CONFIG_DIR: join(scratch, 'config'),
        },
      },
    );
    const results = JSON.parse(await readFile(report, 'utf8')) as SuiteReport;
    const failures = results.testResults.flatMap((f) => [
      f.message,
      ...f.assertionResults.flatMap((a) => a.failureMessages),
    ]);
    expect(failures.filter(Boolean), r.stderr).toEqual([]);
    expect([r.code, results.numPassedTests, results.numFailedTests]).toEqual([0, 3, 0]);
  });

  it('refuses a SVC_TEST_EMULATOR_PORT that is not the port of exec, naming the way out', async () => {
    // The global setup loaded as vitest loads it, by a script under exec that writes what it was told.
    const script = join(scratch, 'setup.mjs');
    const told = join(scratch, 'told.txt');
    const setupEntry = join(ROOT, 'dist', 'src', 'testing', 'vitest-setup.js');
    await writeFile(
      script,
      `import {writeFileSync} from 'node:fs';
import setup from ${JSON.stringify(setupEntry)};
try {
  const teardown = await setup({provide: () => undefined});
  await teardown();
  writeFileSync(process.env.TOLD, 'set up');
} catch (err) {
  writeFileSync(process.env.TOLD, err.message);
}
`,
    );
    const port = await freePort();
    const r = await runCommand(['emulator', 'exec', '--port', String(port), '--', process.execPath, script], {
      env: {
        TMPDIR: scratch,
        TOLD: told,
        SVC_TEST_EMULATOR_PORT: String(port + 1),
        SVC_CONFIG_DIR: join(scratch, 'config'),
      },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(await readFile(told, 'utf8')).toBe(
      `SVC_TEST_EMULATOR_PORT is ${port + 1}, but the tests run under \`svc emulator exec\`, whose emulator listens on ${port}: give exec \`--port ${port + 1}\`, or unset SVC_TEST_EMULATOR_PORT`,
    );
  });
});
