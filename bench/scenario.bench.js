// Scenario files (issue 44): the whole 9-attempt schedule of one refused event (22 h 42 min 30 s of virtual
// time) run through a scenario, against its 2 s goal; 100 runs of it at once, each in an org of its own on one
// emulator, against 4x one run; and 10 runs of the retry-schedule example against the Node receiver, whose JUnit
// reports must be the same bytes.
//
// Beside the 100 runs, the least time this machine can give them: the CPU time they take (every thread of the
// process: the HTTP and the delivery engine here, PGlite's thread) spread over every core. A run of this scenario
// waits on nothing (a manual clock, the stand-in answers at once), so one run alone is CPU too, and the row says
// how many cores it keeps busy: no way of running 100 of them side by side beats that floor.
import {mkdtemp, rm, writeFile} from 'node:fs/promises';
import {availableParallelism, tmpdir} from 'node:os';
import {join} from 'node:path';
import {startEmulator} from '../dist/src/emulator/index.js';
import {readScenarioFile, runScenario} from '../dist/src/scenario/run.js';
import {scenarioJunitXml} from '../dist/src/services/scenario/junit.js';
import {cpuMs, median, printTable} from './lib.js';

const SCHEDULE = [
  'name: whole schedule',
  'endpoints: {main: {url: "http://127.0.0.1:9/never"}}',
  'steps:',
  '  - answer: {endpoint: main, attempts: 1-9, status: 503}',
  '  - trigger: {type: sandbox.ready, as: one}',
  '  - expect: {delivery: {endpoint: main, event: one, status: failed, attempts: 9}}',
  '',
].join('\n');

const folder = await mkdtemp(join(tmpdir(), 'svc-scenario-bench-'));
const emulator = await startEmulator({
  port: 0,
  dataDir: join(folder, 'emulator'),
  inMemory: true,
  clock: 'manual',
  allowLocalEndpoints: true,
});
try {
  const file = join(folder, 'schedule.yaml');
  await writeFile(file, SCHEDULE);
  const scenario = await readScenarioFile(file);
  const once = async () => {
    const started = performance.now();
    const cpu = cpuMs();
    const result = await runScenario({emulator: emulator.control, scenario});
    if (!result.passed) throw new Error(`the schedule scenario failed: ${JSON.stringify(result)}`);
    return {wall: performance.now() - started, cpu: cpuMs() - cpu};
  };
  await once();
  const singles = [];
  for (let i = 0; i < 7; i++) singles.push(await once());
  const single = median(singles.map((s) => s.wall));
  const coresOfOne = median(singles.map((s) => s.cpu / s.wall));

  const started = performance.now();
  const cpuBefore = cpuMs();
  const all = await Promise.all(
    Array.from({length: 100}, () => runScenario({emulator: emulator.control, scenario})),
  );
  const hundred = performance.now() - started;
  const cores = availableParallelism();
  const floor = (cpuMs() - cpuBefore) / cores;
  if (all.some((r) => !r.passed)) throw new Error('a parallel run failed');

  const example = await readScenarioFile('examples/scenarios/retry-schedule.yaml');
  const reports = new Set();
  for (let i = 0; i < 10; i++) {
    const result = await runScenario({
      emulator: emulator.control,
      scenario: example,
      receivers: {app: [process.execPath, 'receiver.mjs']},
    });
    reports.add(
      scenarioJunitXml({emulator: {api_url: '', own: false}, passed: 1, failed: 0, scenarios: [result]}),
    );
  }

  printTable('scenario files', [
    {
      case: 'whole 9-attempt schedule (22h42m30s virtual), one run',
      baseline: 2000,
      value: single,
      unit: 'ms',
      ratio: single / 2000,
      target: 1,
    },
    {
      case: '100 runs at once, parallel orgs, vs one run',
      baseline: single,
      value: hundred,
      unit: 'ms',
      ratio: hundred / single,
      target: 4,
    },
    {
      case: `least time ${cores} cores give the 100 runs' CPU, vs one run`,
      baseline: single,
      value: floor,
      unit: 'ms',
      ratio: floor / single,
    },
    {
      case: '100 runs at once, vs that least time',
      baseline: floor,
      value: hundred,
      unit: 'ms',
      ratio: hundred / floor,
    },
    {
      case: 'cores one run alone keeps busy (its CPU time / its wall time)',
      baseline: 1,
      value: coresOfOne,
      unit: 'cores',
      ratio: coresOfOne,
    },
    {
      case: 'distinct JUnit reports of 10 runs of retry-schedule',
      baseline: 1,
      value: reports.size,
      unit: 'reports',
      ratio: reports.size,
      target: 1,
    },
  ]);
} finally {
  await emulator.stop();
  await rm(folder, {recursive: true, force: true});
}
