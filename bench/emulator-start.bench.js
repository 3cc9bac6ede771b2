// Emulator start-up, cold (fresh data dir), warm (existing data dir) and in memory, beside `node -e 0`
// as the baseline of a bare Node start, measured two ways:
// - the library: a Node process that imports @svc/cli/emulator and awaits startEmulator(): the time from
//   process start to resolved, the time inside startEmulator (targets: warm 0.6 s, cold 1.0 s) and the
//   process CPU time (up to then, and inside startEmulator), which other work on the machine barely
//   disturbs;
// - the CLI: `svc emulator start` spawned, to its ready line.
// Plus the resident memory of the idle emulator. Runs of every case are interleaved.
import {spawn, spawnSync} from 'node:child_process';
import {mkdtempSync, readFileSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {dirname, join} from 'node:path';
import {performance} from 'node:perf_hooks';
import {setTimeout as sleep} from 'node:timers/promises';
import {fileURLToPath, pathToFileURL} from 'node:url';
import {median, percentile, printTable} from './lib.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const RUNS = 5;
const TARGET_MS = {warm: 600, cold: 1000};

function nodeBaseline() {
  const start = performance.now();
  spawnSync(process.execPath, ['-e', '0']);
  return performance.now() - start;
}

// performance.now() counts from the start of the process, so `ready` includes Node's own start-up.
const LIBRARY = `
const {performance} = await import('node:perf_hooks');
const {startEmulator} = await import(${JSON.stringify(pathToFileURL(join(root, 'dist', 'src', 'emulator', 'index.js')).href)});
const options = JSON.parse(process.argv[1]);
const cpuMs = () => {
  const {user, system} = process.cpuUsage();
  return (user + system) / 1000;
};
const entered = performance.now();
const cpuEntered = cpuMs();
const emulator = await startEmulator({port: 0, ...options});
const ready = performance.now();
const cpu = cpuMs();
process.stdout.write(JSON.stringify({ready, inside: ready - entered, cpu, cpuInside: cpu - cpuEntered}) + '\\n');
await emulator.stop();
`;

/** {ready, inside, cpu, cpuInside} in ms of one process that starts the emulator through the library. */
function libraryOnce(options) {
  const result = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', LIBRARY, JSON.stringify(options)],
    {cwd: root, encoding: 'utf8'},
  );
  if (result.status !== 0) throw new Error(`library start failed: ${result.stderr.slice(0, 500)}`);
  return JSON.parse(result.stdout.trim().split('\n').pop());
}

/** Ms from spawn to the CLI's ready line, and the RSS (MB) after a moment of idling. */
function cliOnce(args, {measureRss = false} = {}) {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(
      process.execPath,
      [join(root, 'bin', 'run.js'), 'emulator', 'start', '--json', '--port', '0', ...args],
      {
        cwd: root,
        env: {...process.env, NO_COLOR: '1'},
      },
    );
    let out = '';
    let done = false;
    child.stdout.on('data', async (d) => {
      out += d;
      if (done || !out.includes('\n')) return;
      done = true;
      const ms = performance.now() - start;
      let rssMb;
      if (measureRss) {
        await sleep(2000);
        const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
        rssMb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]) / 1024;
      }
      child.once('exit', () => resolve({ms, rssMb}));
      child.kill('SIGTERM');
    });
    child.on('exit', (code) => {
      if (!done) reject(new Error(`emulator exited with ${code} before ready`));
    });
  });
}

/** Ms from spawning `svc emulator exec -- true` to its exit: start, a key, the command, stop. */
function execOnce() {
  const start = performance.now();
  const result = spawnSync(
    process.execPath,
    [join(root, 'bin', 'run.js'), 'emulator', 'exec', '--', 'true'],
    {
      cwd: root,
      env: {...process.env, NO_COLOR: '1'},
    },
  );
  if (result.status !== 0) throw new Error(`emulator exec failed: ${String(result.stderr).slice(0, 500)}`);
  return performance.now() - start;
}

const spread = (values) => `${Math.round(percentile(values, 10))}-${Math.round(percentile(values, 90))}`;

const scratch = mkdtempSync(join(tmpdir(), 'svc-bench-start-'));
try {
  for (let i = 0; i < 3; i++) nodeBaseline();
  libraryOnce({inMemory: true});
  const base = [];
  const lib = {cold: [], warm: [], memory: []};
  const cli = {cold: [], warm: [], memory: []};
  const exec = [];
  let rss = [];
  for (let r = 0; r < RUNS; r++) {
    base.push(nodeBaseline());
    const libDir = join(scratch, `lib-${r}`);
    lib.cold.push(libraryOnce({dataDir: libDir}));
    lib.warm.push(libraryOnce({dataDir: libDir}));
    lib.memory.push(libraryOnce({inMemory: true}));
    const dir = join(scratch, `cli-${r}`);
    cli.cold.push((await cliOnce(['--data-dir', dir])).ms);
    const w = await cliOnce(['--data-dir', dir], {measureRss: r === 0});
    cli.warm.push(w.ms);
    if (w.rssMb) rss = [w.rssMb];
    cli.memory.push((await cliOnce(['--in-memory'])).ms);
    exec.push(execOnce());
  }
  const b = median(base);
  const cases = [
    ['cold: fresh data dir', 'cold'],
    ['warm: existing data dir', 'warm'],
    ['in memory', 'memory'],
  ];
  const pick = (runs, field) => runs.map((run) => run[field]);
  printTable(`startEmulator(): process start to resolved (median of ${RUNS}), against \`node -e 0\``, [
    ...cases.map(([label, k]) => ({
      case: label,
      baseline: b,
      value: median(pick(lib[k], 'ready')),
      unit: 'ms',
      ratio: median(pick(lib[k], 'ready')) / b,
    })),
    ...cases.map(([label, k]) => ({
      case: `${label}, process CPU`,
      baseline: b,
      value: median(pick(lib[k], 'cpu')),
      unit: 'ms',
      ratio: median(pick(lib[k], 'cpu')) / b,
    })),
  ]);
  printTable(
    `Time inside startEmulator() (median of ${RUNS}; p10-p90 in the case name), against its target`,
    [
      ...cases.map(([label, k]) => {
        const inside = pick(lib[k], 'inside');
        const target = TARGET_MS[k];
        return {
          case: `${label} (${spread(inside)} ms)`,
          baseline: target ?? '',
          value: median(inside),
          unit: 'ms',
          ratio: target ? median(inside) / target : undefined,
          target: target ? 1 : undefined,
        };
      }),
    ],
  );
  printTable(`CPU time inside startEmulator() (median of ${RUNS}), all threads; against the same targets`, [
    ...cases.map(([label, k]) => {
      const target = TARGET_MS[k];
      const cpu = median(pick(lib[k], 'cpuInside'));
      return {
        case: label,
        baseline: target ?? '',
        value: cpu,
        unit: 'ms',
        ratio: target ? cpu / target : undefined,
      };
    }),
  ]);
  printTable(`svc emulator start to ready (median of ${RUNS}), against \`node -e 0\``, [
    ...cases.map(([label, k]) => ({
      case: `${label} (${spread(cli[k])} ms)`,
      baseline: b,
      value: median(cli[k]),
      unit: 'ms',
      ratio: median(cli[k]) / b,
    })),
  ]);
  // What a CI job feels: an in-memory emulator starts no slower than one reopening its data dir, and
  // `emulator exec` costs little more than the start itself (its key, the command, the stop).
  const warmInside = median(pick(lib.warm, 'inside'));
  const memoryInside = median(pick(lib.memory, 'inside'));
  printTable(`In memory and exec, each beside its baseline (median of ${RUNS})`, [
    {
      case: 'in memory, inside startEmulator() (baseline: warm data dir)',
      baseline: warmInside,
      value: memoryInside,
      unit: 'ms',
      ratio: memoryInside / warmInside,
      target: 1,
    },
    {
      case: `emulator exec -- true, spawn to exit (${spread(exec)} ms; baseline: start --in-memory to ready)`,
      baseline: median(cli.memory),
      value: median(exec),
      unit: 'ms',
      ratio: median(exec) / median(cli.memory),
      target: 1.3,
    },
  ]);
  printTable('Idle emulator resident memory, 2 s after ready (target 300 MB)', [
    {case: 'RSS', baseline: 300, value: rss[0], unit: 'MB', ratio: rss[0] / 300, target: 1},
  ]);
} finally {
  rmSync(scratch, {recursive: true, force: true});
}
