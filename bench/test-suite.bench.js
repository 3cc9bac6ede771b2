// An 8-file vitest suite of a receiver app (test/testing/parallel-suite: each file walks a retry on its own
// clock), run three ways: one shared emulator with an org and a clock per file on 4 workers, the same on 1
// worker, and one emulator per file on 4 workers. Prints the wall time of each and the ratios to the first.
import {spawnSync} from 'node:child_process';
import {dirname, join} from 'node:path';
import {fileURLToPath} from 'node:url';
import {median, printTable} from './lib.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const suite = join(root, 'test', 'testing', 'parallel-suite');
const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
const RUNS = Number(process.env.BENCH_SUITE_RUNS ?? 2);

const SHAPES = [
  {name: 'shared emulator, org + clock per file, 4 workers', config: 'vitest.config.ts', workers: 4},
  {name: 'shared emulator, org + clock per file, 1 worker', config: 'vitest.config.ts', workers: 1},
  {name: 'one emulator per file, 4 workers', config: 'vitest.per-file.config.ts', workers: 4},
];

function runOnce(shape) {
  const started = performance.now();
  const r = spawnSync(
    process.execPath,
    [vitest, 'run', '--config', join(suite, shape.config), '--maxWorkers', String(shape.workers)],
    {cwd: root, encoding: 'utf8', env: {...process.env, NO_COLOR: '1'}},
  );
  const ms = performance.now() - started;
  if (r.status !== 0) {
    process.stderr.write(`${shape.name}: the suite failed\n${r.stdout}${r.stderr}`);
    process.exit(1);
  }
  return ms;
}

const times = new Map(SHAPES.map((s) => [s.name, []]));
// Interleaved, so a slow moment of the machine falls on every shape alike.
for (let run = 0; run < RUNS; run++) for (const shape of SHAPES) times.get(shape.name).push(runOnce(shape));

const base = median(times.get(SHAPES[0].name));
printTable(
  `8-file suite, median of ${RUNS} runs`,
  SHAPES.map((s) => {
    const m = median(times.get(s.name));
    return {case: s.name, baseline: base / 1000, value: m / 1000, unit: 's wall', ratio: m / base};
  }),
);
