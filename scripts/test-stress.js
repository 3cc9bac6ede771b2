// Runs the whole suite several times in a row while another process keeps every core busy, and says how each run
// ended: a test that waits for a time or a frame instead of a condition fails here first.
//
//   npm run test:stress                 5 runs under load (after a build)
//   npm run test:stress -- --runs 3     another count
//   npm run test:stress -- -- FILES     only these test files (anything after a second -- goes to vitest)
//
// The load is Debian's stress-ng (`stress-ng --cpu N`) where it is installed, else one Node busy loop per core.
import {spawn, spawnSync} from 'node:child_process';
import {availableParallelism} from 'node:os';
import {dirname, join} from 'node:path';
import {fileURLToPath} from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const split = args.indexOf('--');
const own = split < 0 ? args : args.slice(0, split);
const vitestArgs = split < 0 ? [] : args.slice(split + 1);
const runsAt = own.indexOf('--runs');
const runs = runsAt < 0 ? 5 : Number(own[runsAt + 1]);
if (!Number.isInteger(runs) || runs < 1) {
  console.error('test-stress: --runs takes a whole number of runs, 1 or more');
  process.exit(2);
}
const cores = availableParallelism();

function startLoad() {
  const stressNg = spawnSync('stress-ng', ['--version'], {stdio: 'ignore'});
  if (stressNg.status === 0) {
    const child = spawn('stress-ng', ['--cpu', String(cores), '--quiet'], {stdio: 'ignore'});
    return {what: `stress-ng --cpu ${cores}`, stop: () => child.kill('SIGTERM')};
  }
  const loops = Array.from({length: cores}, () =>
    spawn(process.execPath, ['-e', 'for (;;) {}'], {stdio: 'ignore'}),
  );
  return {
    what: `${cores} Node busy loops`,
    stop: () => {
      for (const l of loops) l.kill('SIGKILL');
    },
  };
}

function runSuite() {
  return new Promise((resolve) => {
    const started = Date.now();
    const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
    const child = spawn(process.execPath, [vitest, 'run', ...vitestArgs], {cwd: root, stdio: 'inherit'});
    child.on('close', (code) => resolve({code, seconds: Math.round((Date.now() - started) / 1000)}));
  });
}

const load = startLoad();
const stopLoad = () => load.stop();
process.on('exit', stopLoad);
process.on('SIGINT', () => process.exit(130));
console.error(`test-stress: ${runs} run(s) of the suite while ${load.what} keeps the ${cores} cores busy`);
const results = [];
for (let i = 1; i <= runs; i++) {
  const r = await runSuite();
  results.push(r);
  console.error(
    `test-stress: run ${i} of ${runs}: ${r.code === 0 ? 'passed' : `FAILED (exit ${r.code})`} in ${r.seconds} s`,
  );
}
stopLoad();
const passed = results.filter((r) => r.code === 0).length;
console.error(`test-stress: ${passed} of ${runs} runs passed under load`);
process.exitCode = passed === runs ? 0 : 1;
