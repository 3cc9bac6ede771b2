// `svc scenario run` as a user runs it: the built CLI in-process, against this file's emulator (manual clock),
// with the examples' Node receiver the scenarios start. Exit 0 when every expectation holds, 1 when one fails
// (named, with what happened instead), 2 when a file is wrong (every problem at its line and column), 3 when
// --emulator running finds none; JUnit owner-only, the same bytes run after run.
import {mkdtemp, readFile, rm, stat, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js';
import {runCommand} from '../helpers/run-cli.js';

const EXAMPLES = 'examples/scenarios';
const NODE_RECEIVER = `app=${process.execPath} receiver.mjs`;

let em: RunningEmulator;
let root: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-scenario-run-'));
  em = await startEmulator({
    port: 0,
    dataDir: join(root, 'emulator'),
    clock: 'manual',
    allowLocalEndpoints: true,
  });
  env = {SVC_EMULATOR_DATA_DIR: em.dataDir, SVC_CONFIG_DIR: join(root, 'config')};
}, 60_000);
afterAll(async () => {
  await em?.stop();
  if (root) await rm(root, {recursive: true, force: true});
});

const scenarios = (...names: string[]) => names.map((n) => `${EXAMPLES}/${n}.yaml`);

describe('svc scenario run', {timeout: 60_000}, () => {
  it('runs the example scenarios against the Node receiver: each expectation a line, exit 0', async () => {
    const r = await runCommand(
      [
        'scenario',
        'run',
        ...scenarios('retry-schedule', 'expiry', 'revocation', 'duplicates'),
        '--receiver',
        NODE_RECEIVER,
      ],
      {env},
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      [
        '✓ retry schedule  examples/scenarios/retry-schedule.yaml',
        '  ✓ attempt 1 of ready to main is answered 500',
        '  ✓ attempt 3 of ready to main is answered 500',
        '  ✓ attempt 4 of ready to main is answered 200',
      ].join('\n'),
    );
    expect(r.stdout.endsWith('\nAll 4 scenarios passed.\n')).toBe(true);
  });

  it('names the expectation a seeded receiver bug breaks, and what happened instead: exit 1', async () => {
    const r = await runCommand(['scenario', 'run', ...scenarios('duplicates'), '--receiver', NODE_RECEIVER], {
      env: {...env, RECEIVER_BUG: 'no-dedupe'},
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      '  ✗ the receiver of main applied first once (line 20)\n    got applied 2 times\n',
    );
    expect(r.stdout.endsWith('\n1 of 1 scenario failed.\n')).toBe(true);
    const json = await runCommand(
      ['scenario', 'run', ...scenarios('duplicates'), '--receiver', NODE_RECEIVER, '--json'],
      {
        env: {...env, RECEIVER_BUG: 'no-dedupe'},
      },
    );
    expect(json.code).toBe(1);
    const report = JSON.parse(json.stdout);
    expect({passed: report.passed, failed: report.failed, own: report.emulator.own}).toEqual({
      passed: 0,
      failed: 1,
      own: false,
    });
    expect(report.scenarios[0].expectations[2]).toEqual({
      name: 'the receiver of main applied first once',
      step: 5,
      line: 20,
      passed: false,
      got: 'applied 2 times',
    });
  });

  it('writes JUnit owner-only, the same bytes on every run', async () => {
    const files = [join(root, 'a.xml'), join(root, 'b.xml')];
    for (const file of files) {
      const r = await runCommand(
        [
          'scenario',
          'run',
          ...scenarios('retry-schedule', 'duplicates'),
          '--receiver',
          NODE_RECEIVER,
          '--junit',
          file,
        ],
        {env: {...env, RECEIVER_BUG: 'no-dedupe'}},
      );
      expect(r.code).toBe(1);
      expect((await stat(file)).mode & 0o777).toBe(0o600);
    }
    const [a, b] = await Promise.all(files.map((f) => readFile(f, 'utf8')));
    expect(a).toBe(b);
    expect(a).toContain(
      '<testsuites name="svc scenario run" tests="11" failures="2" errors="0" skipped="0">',
    );
    expect(a).toContain(
      '<failure message="applied 2 times" type="expectation">examples/scenarios/duplicates.yaml:20: the receiver of main applied first once\ngot: applied 2 times</failure>',
    );
  });

  it('says every problem of every wrong file at its line and column, runs none of them: exit 2', async () => {
    const file = join(root, 'wrong.yaml');
    await writeFile(
      file,
      'name: wrong\nendpoints: {main: {url: "http://127.0.0.1:9/"}}\nsteps:\n  - advance: soon\n  - trigger: sandbox.late\n',
    );
    const r = await runCommand(['scenario', 'run', file, join(root, 'missing.yaml')], {env});
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(
      [
        'scenario files have 3 problems:',
        `${file}:4:14: steps[0].advance "soon" is not a virtual duration: whole numbers with units, like 30s, 10m, 2h30m, 1d`,
        `${file}:5:14: steps[1].trigger must be one of: sandbox.ready, sandbox.stopped, sandbox.error, sandbox.expired`,
        `${join(root, 'missing.yaml')}:1:1: does not exist`,
      ].join('\n'),
    );
    const json = await runCommand(['scenario', 'run', file, '--json'], {env});
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout).error.code).toBe('invalid_scenario');
  });

  it('refuses a --receiver the file has no receiver for, and runs nothing without files: exit 2', async () => {
    const r = await runCommand(['scenario', 'run', ...scenarios('expiry'), '--receiver', 'web=node x.js'], {
      env,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'examples/scenarios/expiry.yaml:1:1: receivers has no receiver "web" for --receiver to replace',
    );
    expect((await runCommand(['scenario', 'run'], {env})).code).toBe(2);
  });

  it('--emulator running with none running exits 3, as every command that needs one does', async () => {
    const r = await runCommand(
      ['scenario', 'run', ...scenarios('expiry'), '--emulator', 'running', '--json'],
      {
        env: {SVC_EMULATOR_DATA_DIR: join(root, 'none'), SVC_CONFIG_DIR: join(root, 'config')},
      },
    );
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stdout).error.code).toBe('emulator_not_running');
  });

  // The start is under test here: with none running, the run starts an emulator of its own and stops it after.
  it('starts an emulator of its own when none runs, and stops it after', async () => {
    const r = await runCommand(
      ['scenario', 'run', ...scenarios('expiry'), '--receiver', NODE_RECEIVER, '--json'],
      {
        env: {SVC_EMULATOR_DATA_DIR: join(root, 'none'), SVC_CONFIG_DIR: join(root, 'config')},
      },
    );
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.emulator.own).toBe(true);
    const after = await fetch(`${report.emulator.api_url}/_emulator/health`).catch(() => 'stopped');
    expect(after).toBe('stopped');
  });
});
