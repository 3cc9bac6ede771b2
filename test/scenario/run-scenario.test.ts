// runScenario from a JS suite (`@svc/cli/testing`): the example scenarios run against the examples' Python
// receiver (standard library only) and Node receiver, each a real process the scenario starts, on a real emulator
// of this file; each receiver with a seeded bug fails the scenario that covers it, with the expectation named.
import {once} from 'node:events';
import {mkdtemp, rm, writeFile} from 'node:fs/promises';
import {type AddressInfo, createServer, type Socket} from 'node:net';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {
  runScenario,
  ScenarioFileError,
  startTestEmulator,
  type TestEmulator,
} from '../../src/testing/index.js';
import {spawnProcess} from '../emulator/delivery/processes.js';
import {describeNeeding, PYTHON, PYTHON_PATH} from '../helpers/requirements.js';

const EXAMPLES = 'examples/scenarios';
const SCENARIOS = ['retry-schedule', 'expiry', 'revocation', 'duplicates'] as const;
const RECEIVERS = {
  python: {needs: [PYTHON], command: [PYTHON_PATH, 'receiver.py']},
  node: {needs: [], command: [process.execPath, 'receiver.mjs']},
};
/** Each seeded bug, the scenario that must catch it and the expectation it names. */
const BUGS = [
  {
    bug: 'refuse-retries',
    scenario: 'retry-schedule',
    fails: 'attempt 4 of ready to main is answered 200',
    got: 'attempt 4 answered 500',
  },
  {
    bug: 'refuse-expired',
    scenario: 'expiry',
    fails: 'the first sandbox.expired of box arrives at main within 1h',
    got: 'not arrived after 1h: pending after 1 attempt, last answered 500',
  },
  {
    bug: 'no-dedupe',
    scenario: 'duplicates',
    fails: 'the receiver of main applied first once',
    got: 'applied 2 times',
  },
] as const;

let em: TestEmulator;
let folder: string;

beforeAll(async () => {
  em = await startTestEmulator();
  folder = await mkdtemp(join(tmpdir(), 'svc-scenario-test-'));
});
afterAll(async () => {
  await em?.stop();
  if (folder) await rm(folder, {recursive: true, force: true});
});

const run = (scenario: string, command: readonly string[], env: NodeJS.ProcessEnv = process.env) =>
  runScenario({
    emulator: em.connection,
    file: `${EXAMPLES}/${scenario}.yaml`,
    receivers: {app: command},
    env,
  });

for (const [language, receiver] of Object.entries(RECEIVERS)) {
  describeNeeding(
    receiver.needs,
    `the example scenarios against the ${language} receiver`,
    {timeout: 60_000},
    () => {
      it.each(SCENARIOS)('%s passes', async (scenario) => {
        const result = await run(scenario, receiver.command);
        expect(result.error).toBeUndefined();
        expect(result.expectations.filter((e) => !e.passed)).toEqual([]);
        expect(result.passed).toBe(true);
        expect(result.expectations.length).toBeGreaterThan(2);
      });

      it.each(BUGS)(
        'a receiver with the bug $bug fails $scenario, naming the expectation',
        async (seeded) => {
          const result = await run(seeded.scenario, receiver.command, {
            ...process.env,
            RECEIVER_BUG: seeded.bug,
          });
          expect(result.passed).toBe(false);
          expect(result.expectations.filter((e) => !e.passed)).toContainEqual(
            expect.objectContaining({name: seeded.fails, got: seeded.got}),
          );
        },
      );
    },
  );
}

describe('runScenario', {timeout: 60_000}, () => {
  it('walks the whole schedule of a refused event: nine attempts at their virtual times, 22h42m30s', async () => {
    const file = join(folder, 'schedule.yaml');
    await writeFile(
      file,
      [
        'name: whole schedule',
        'start: 2030-01-01T00:00:00Z',
        'endpoints: {main: {url: "http://127.0.0.1:9/never"}}',
        'steps:',
        '  - answer: {endpoint: main, attempts: 1-9, status: 503}',
        '  - trigger: {type: sandbox.ready, as: one}',
        '  - expect: {arrives: {endpoint: main, event: one, within: 22h}}',
        '  - expect: {delivery: {endpoint: main, event: one, status: failed, attempts: 9}}',
        '  - expect: {attempt: {endpoint: main, event: one, n: 9, outcome: 2xx}}',
        '',
      ].join('\n'),
    );
    const result = await runScenario({emulator: em.connection, file});
    expect(result.virtual_ms).toBe((22 * 3600 + 42 * 60 + 30) * 1000);
    expect(result.expectations.map((e) => [e.name, e.passed, e.got])).toEqual([
      [
        'one arrives at main within 22h',
        false,
        'not arrived after 22h: pending after 8 attempts, last answered 503',
      ],
      ['the delivery of one to main ends failed after 9 attempts', true, undefined],
      ['attempt 9 of one to main is 2xx', false, 'attempt 9 was non-2xx (answered 503)'],
    ]);
  });

  it('passes attempts to the receiver unless told otherwise, and tells a receiver that is not there', async () => {
    const file = join(folder, 'down.yaml');
    await writeFile(
      file,
      [
        'name: nobody listens',
        'endpoints: {main: {url: "http://127.0.0.1:9/hook"}}',
        'steps:',
        '  - trigger: {type: sandbox.ready, as: one}',
        '  - expect: {attempt: {endpoint: main, event: one, n: 1, outcome: no-answer}}',
        '  - answer: {endpoint: main, attempts: 2, status: 204}',
        '  - expect: {attempt: {endpoint: main, event: one, n: 2, status: 204}}',
        '  - expect: {delivery: {endpoint: main, event: one, status: succeeded}}',
        '',
      ].join('\n'),
    );
    const result = await runScenario({emulator: em.connection, file});
    expect(result.expectations.filter((e) => !e.passed)).toEqual([]);
    expect(result.passed).toBe(true);
  });

  it('branches with checkpoint and rewind: run to attempt 3, go back, answer differently', async () => {
    const file = join(folder, 'branch.yaml');
    await writeFile(
      file,
      [
        'name: branch',
        'start: 2030-01-01T00:00:00Z',
        'endpoints: {main: {url: "http://127.0.0.1:9/never"}}',
        'steps:',
        '  - answer: {endpoint: main, attempts: 1-9, status: 500}',
        '  - trigger: {type: sandbox.ready, as: one}',
        '  - checkpoint: after-first',
        '  - expect: {attempt: {endpoint: main, event: one, n: 3, status: 500}}',
        '  - rewind: after-first',
        '  - expect: {count: {endpoint: main, attempts: 1}}',
        '  - answer: {endpoint: main, attempts: 2, status: 200}',
        '  - expect: {attempt: {endpoint: main, event: one, n: 2, status: 200}}',
        '  - expect: {delivery: {endpoint: main, event: one, status: succeeded, attempts: 2}}',
        '',
      ].join('\n'),
    );
    const result = await runScenario({emulator: em.connection, file});
    expect(result.error).toBeUndefined();
    expect(result.expectations.filter((e) => !e.passed)).toEqual([]);
    // The clock went back with the org: 30 s for the second attempt, after the 2 m 30 s of the first branch.
    expect(result.virtual_ms).toBe(30_000);
  });

  it('rejects a wrong file with every problem at its line, before making anything', async () => {
    const file = join(folder, 'wrong.yaml');
    await writeFile(
      file,
      'name: wrong\nendpoints: {main: {url: "http://127.0.0.1:9/"}}\nsteps:\n  - advance: soon\n',
    );
    const err = await runScenario({emulator: em.connection, file}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ScenarioFileError);
    expect((err as ScenarioFileError).message).toBe(
      `${file}:4:14: steps[0].advance "soon" is not a virtual duration: whole numbers with units, like 30s, 10m, 2h30m, 1d`,
    );
  });

  it('ends the run at a receiver that does not start, with what it wrote', async () => {
    const result = await run('revocation', [
      process.execPath,
      '-e',
      'console.error("no secret here"); process.exit(3)',
    ]);
    expect(result.passed).toBe(false);
    expect(result.error?.message).toBe('the receiver app exited with 3; its last output:\nno secret here');
  });
});

// A suite of its own in a process of its own, interrupted as a person interrupts `npm test` (Ctrl+C) or CI cancels a
// job (SIGTERM): what is under test is what the signal leaves behind. Its receivers run in groups of their own,
// which a terminal's Ctrl+C does not reach.
describe('a run interrupted', {timeout: 60_000}, () => {
  it.each(['SIGINT', 'SIGTERM'] as const)(
    'by %s stops the receivers it started: none outlives it',
    async (signal) => {
      // The receiver keeps a connection to the test open for as long as it lives, and never answers a delivery.
      const hello = createServer();
      hello.listen(0, '127.0.0.1');
      await once(hello, 'listening');
      await writeFile(
        join(folder, 'holder.mjs'),
        [
          "import {createServer} from 'node:http';",
          "import {connect} from 'node:net';",
          "connect(Number(process.env.HELLO_PORT), '127.0.0.1');",
          "createServer(() => {}).listen(Number(process.env.PORT), '127.0.0.1');",
        ].join('\n'),
      );
      const file = join(folder, `held-${signal}.yaml`);
      await writeFile(
        file,
        [
          `name: held ${signal}`,
          'receivers:',
          `  app: {command: [${JSON.stringify(process.execPath)}, holder.mjs], env: {HELLO_PORT: "${(hello.address() as AddressInfo).port}"}}`,
          'endpoints: {main: {receiver: app, path: /hooks}}',
          'steps:',
          '  - trigger: {type: sandbox.ready, as: ready}',
          '  - expect: {delivery: {endpoint: main, event: ready, status: succeeded}}',
          '',
        ].join('\n'),
      );
      const suite = [
        `const {runScenario} = await import(${JSON.stringify(new URL('../../dist/src/testing/index.js', import.meta.url).href)});`,
        `await runScenario({emulator: ${JSON.stringify(em.connection)}, file: ${JSON.stringify(file)}});`,
      ].join('\n');
      const run = spawnProcess(process.execPath, ['--input-type=module', '-e', suite]);
      try {
        const [socket] = (await once(hello, 'connection')) as [Socket];
        const gone = once(socket, 'close');
        run.child.kill(signal);
        await run.exited;
        expect(run.child.signalCode, run.stderr()).toBe(signal);
        // The receiver's process ended with the run: its connection to the test closed.
        await gone;
      } finally {
        if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
        hello.close();
      }
    },
  );
});
