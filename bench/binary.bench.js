// The single executable (dist/binary/svc-linux-x64, `npm run build:binary`; docs/binary.md) against the Node 26 it
// is built from, in the same run:
// - `svc --version` from the executable against `node -e 0` of that Node (target <= 1.2x);
// - an in-memory emulator ready (spawn to its ready line) from the executable against the CLI as npm installs it
//   (bin/run.js and dist/) run by that Node (target <= 1.1x);
// - the executable's size (target <= 160 MB);
// - its first `--version` on an empty cache, where the launcher checks the machine, writes its program, checks and
//   tries it, against `cp` of the whole file (writing the same bytes is the floor).
// Both sides start from kept files: the executable's folder written and checked once, the CLI's code cache made.
import {spawn, spawnSync} from 'node:child_process';
import {existsSync, mkdirSync, mkdtempSync, rmSync, statSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {dirname, join} from 'node:path';
import {performance} from 'node:perf_hooks';
import {fileURLToPath} from 'node:url';
import {cachedNode} from '../scripts/node-for-binary.js';
import {compareCommands, median, pairedTimeRatio, printTable} from './lib.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const BINARY = join(root, 'dist', 'binary', 'svc-linux-x64');
const RUNS = 5;

const node = cachedNode();
if (!existsSync(BINARY) || !node) {
  process.stdout.write(
    'binary: no executable or no Node 26 in the cache; run `npm run build:binary` first\n',
  );
  process.exit(0);
}

const scratch = mkdtempSync(join(tmpdir(), 'svc-bench-binary-'));
const env = {
  ...process.env,
  HOME: scratch,
  XDG_CACHE_HOME: join(scratch, 'cache'),
  XDG_CONFIG_HOME: join(scratch, 'config'),
  XDG_DATA_HOME: join(scratch, 'data'),
  NO_COLOR: '1',
};

/** Ms from spawn to the ready line of `emulator start --in-memory`. */
function readyOnce(argv) {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(
      argv[0],
      [...argv.slice(1), 'emulator', 'start', '--in-memory', '--json', '--port', '0'],
      {
        env,
        cwd: scratch,
        stdio: ['ignore', 'pipe', 'ignore'],
      },
    );
    let out = '';
    let ms;
    child.stdout.on('data', (d) => {
      out += d;
      if (ms !== undefined || !out.includes('\n')) return;
      ms = performance.now() - start;
      child.kill('SIGTERM');
    });
    child.on('exit', (code) =>
      ms === undefined ? reject(new Error(`exited ${code} before ready`)) : resolve(ms),
    );
  });
}

/** Ms of one run of argv, which must succeed. */
function timeOnce(argv, runEnv = env) {
  const start = performance.now();
  const r = spawnSync(argv[0], argv.slice(1), {env: runEnv, cwd: scratch, stdio: 'ignore'});
  if (r.status !== 0) throw new Error(`${argv.join(' ')} exited ${r.status}`);
  return performance.now() - start;
}

/** Paired runs of the launcher's first start (an empty cache each time) and of cp of the file. */
function firstRuns() {
  const first = {binary: [], cp: []};
  for (let r = 0; r < 3; r++) {
    const cache = join(scratch, `first-${r}`);
    mkdirSync(cache);
    first.binary.push(timeOnce([BINARY, '--version'], {...env, XDG_CACHE_HOME: cache}));
    first.cp.push(timeOnce(['cp', BINARY, join(cache, 'copy')]));
    rmSync(cache, {recursive: true, force: true});
  }
  return first;
}

try {
  const cli = [node.node, join(root, 'bin', 'run.js')];
  const first = firstRuns();
  const versions = compareCommands({node: [node.node, '-e', '0'], binary: [BINARY, '--version']}, {env});

  // Each writes what it keeps (the executable's folder, the CLI's code cache) before anything is measured.
  await readyOnce([BINARY]);
  await readyOnce(cli);
  const ready = {binary: [], cli: []};
  for (let r = 0; r < RUNS; r++) {
    const order = r % 2 === 0 ? ['binary', 'cli'] : ['cli', 'binary'];
    for (const name of order) ready[name].push(await readyOnce(name === 'binary' ? [BINARY] : cli));
  }
  const readyRatio = median(ready.binary.map((ms, i) => ms / ready.cli[i]));
  const sizeMb = statSync(BINARY).size / 1024 / 1024;

  printTable(`single executable (${node.version})`, [
    {
      case: 'svc --version vs node -e 0',
      baseline: versions.node.medianMs,
      value: versions.binary.medianMs,
      unit: 'ms',
      ratio: pairedTimeRatio(versions, 'binary', 'node'),
      target: 1.2,
    },
    {
      case: 'in-memory emulator ready vs the npm CLI',
      baseline: median(ready.cli),
      value: median(ready.binary),
      unit: 'ms',
      ratio: readyRatio,
      target: 1.1,
    },
    {case: 'executable size', baseline: 160, value: sizeMb, unit: 'MB', ratio: sizeMb / 160, target: 1},
    {
      case: 'first run on an empty cache vs cp of the file',
      baseline: median(first.cp),
      value: median(first.binary),
      unit: 'ms',
      ratio: median(first.binary.map((ms, i) => ms / first.cp[i])),
    },
  ]);
} finally {
  rmSync(scratch, {recursive: true, force: true});
}
