// Bench harness helpers, shared by every bench/*.bench.js.
//
// A bench is a plain ES module that imports the built code from ../dist (run `npm run build` first;
// `npm run bench` does), measures the thing and a baseline in the same process and run, and prints a
// table of ratios with printTable(). Ratios, not absolute numbers, are what carries across machines.
// bench/run.js runs each bench in its own child process so one bench's JIT state and garbage never
// colour another's. Keep a bench under ~30 s. Timings never go into tests; they live here.
//
//   measureOps(fn, {minMs, clock})   ops/s of a sync or async function: warm-up, several rounds, median;
//                                    clock 'wall' (default) or 'cpu' (this process's CPU time, steady
//                                    on a machine busy with other work; for CPU-bound code)
//   compareOps({name: fn, …}, opts)  the same for several functions, rounds interleaved so that load
//                                    from other processes hits every case alike; pairedSlowdown()
//                                    turns it into a ratio, round by round
//   measureCommand(argv, {runs})     median wall time of spawning a process to completion
//   compareCommands({name: argv}, o) the same for several commands, runs interleaved; pairedTimeRatio()
//                                    turns it into a ratio, run by run
//   cpuMs()                          this process's CPU time so far, in ms (every thread)
//   percentile(values, p)            p in [0, 100], linear interpolation
//   printTable(title, rows)          rows {case, baseline, value, unit, ratio, target}; ratio and target
//                                    print as "1.07x (target <= 1.10x) ok" or "… OVER". With
//                                    BENCH_STRICT=1 a row over its target sets the exit code to 1.
import {spawnSync} from 'node:child_process';
import {performance} from 'node:perf_hooks';

export function percentile(values, p) {
  if (values.length === 0) throw new RangeError('percentile() of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (Math.min(Math.max(p, 0), 100) / 100) * (sorted.length - 1);
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  return sorted[low] + (sorted[high] - sorted[low]) * (rank - low);
}

export function median(values) {
  return percentile(values, 50);
}

function isThenable(value) {
  return value !== null && typeof value === 'object' && typeof value.then === 'function';
}

// Runs fn `count` times; async functions are awaited one after another, as a receiver would.
async function runBatch(fn, count, isAsync) {
  if (isAsync) {
    for (let i = 0; i < count; i++) await fn();
  } else {
    for (let i = 0; i < count; i++) fn();
  }
}

/** Finds a batch size that takes about `targetMs`, so timer reads cost nothing next to the work. */
async function calibrate(fn, isAsync, targetMs) {
  let count = 1;
  for (;;) {
    const start = performance.now();
    await runBatch(fn, count, isAsync);
    const elapsed = performance.now() - start;
    if (elapsed >= targetMs || count >= 2 ** 24)
      return Math.max(1, Math.round((count * targetMs) / Math.max(elapsed, 1e-3)));
    count *= 2;
  }
}

async function prepare(fn, warmupMs) {
  const first = fn();
  const isAsync = isThenable(first);
  if (isAsync) await first;
  const batch = await calibrate(fn, isAsync, 2);
  const until = performance.now() + warmupMs;
  while (performance.now() < until) await runBatch(fn, batch, isAsync);
  return {isAsync, batch};
}

// 'wall' is elapsed time. 'cpu' is this process's CPU time (all its threads, so WebCrypto's thread
// pool and the GC helpers count): on a machine shared with other work, time spent waiting for a core
// is not charged to the code under test. Use 'cpu' for CPU-bound code, 'wall' for anything that waits.
/** This process's CPU time so far, in ms (every thread). */
export function cpuMs() {
  const {user, system} = process.cpuUsage();
  return (user + system) / 1000;
}

const clocks = {wall: () => performance.now(), cpu: cpuMs};

function clockOf(name) {
  const clock = clocks[name];
  if (!clock) throw new RangeError(`clock must be 'wall' or 'cpu', not ${name}`);
  return clock;
}

async function round(fn, {isAsync, batch}, minMs, clock) {
  let ops = 0;
  const start = clock();
  let elapsed = 0;
  while (elapsed < minMs) {
    await runBatch(fn, batch, isAsync);
    ops += batch;
    elapsed = clock() - start;
  }
  return (ops * 1000) / elapsed;
}

function summary(samples) {
  const opsPerSec = median(samples);
  return {opsPerSec, nsPerOp: 1e9 / opsPerSec, samples};
}

/** Operations per second of `fn` (median of `rounds` rounds of at least `minMs` each). */
export async function measureOps(fn, {minMs = 300, rounds = 7, warmupMs = 200, clock = 'wall'} = {}) {
  const now = clockOf(clock);
  const plan = await prepare(fn, warmupMs);
  const samples = [];
  for (let r = 0; r < rounds; r++) samples.push(await round(fn, plan, minMs, now));
  return summary(samples);
}

/** measureOps for several functions with their rounds interleaved: {name: fn} -> {name: result}. */
export async function compareOps(cases, {minMs = 300, rounds = 7, warmupMs = 200, clock = 'wall'} = {}) {
  const now = clockOf(clock);
  const names = Object.keys(cases);
  const plans = {};
  for (const name of names) plans[name] = await prepare(cases[name], warmupMs);
  const samples = Object.fromEntries(names.map((name) => [name, []]));
  for (let r = 0; r < rounds; r++) {
    // Rotate the order each round so no case always runs right after the same neighbour.
    for (let i = 0; i < names.length; i++) {
      const name = names[(i + r) % names.length];
      samples[name].push(await round(cases[name], plans[name], minMs, now));
    }
  }
  return Object.fromEntries(names.map((name) => [name, summary(samples[name])]));
}

function commandRunner(argv, {env, cwd, input}) {
  const [program, ...args] = argv;
  return () => {
    const start = performance.now();
    const result = spawnSync(program, args, {
      env,
      cwd,
      input,
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    const ms = performance.now() - start;
    if (result.status !== 0) {
      throw new Error(
        `${argv.join(' ')} exited with ${result.status}: ${String(result.stderr).slice(0, 500)}`,
      );
    }
    return ms;
  };
}

/** Median wall time in ms of running `argv` (argv[0] is the program) to completion. */
export function measureCommand(argv, {runs = 15, warmup = 2, env = process.env, cwd, input} = {}) {
  const once = commandRunner(argv, {env, cwd, input});
  for (let i = 0; i < warmup; i++) once();
  const samples = [];
  for (let i = 0; i < runs; i++) samples.push(once());
  return {medianMs: median(samples), p90Ms: percentile(samples, 90), samples};
}

/**
 * measureCommand for several commands ({name: argv}), runs interleaved in rotating order so that load
 * from other processes hits every command alike. Returns {name: {medianMs, p90Ms, samples}}.
 */
export function compareCommands(commands, {runs = 15, warmup = 2, env = process.env, cwd, input} = {}) {
  const names = Object.keys(commands);
  const runners = Object.fromEntries(
    names.map((name) => [name, commandRunner(commands[name], {env, cwd, input})]),
  );
  for (let i = 0; i < warmup; i++) for (const name of names) runners[name]();
  const samples = Object.fromEntries(names.map((name) => [name, []]));
  for (let r = 0; r < runs; r++) {
    for (let i = 0; i < names.length; i++) {
      const name = names[(i + r) % names.length];
      samples[name].push(runners[name]());
    }
  }
  return Object.fromEntries(
    names.map((name) => [
      name,
      {medianMs: median(samples[name]), p90Ms: percentile(samples[name], 90), samples: samples[name]},
    ]),
  );
}

/** Wall-time ratio of command `name` against `baseline` from one compareCommands() result, run by run. */
export function pairedTimeRatio(results, name, baseline) {
  const a = results[name].samples;
  const b = results[baseline].samples;
  return median(a.map((ms, i) => ms / b[i]));
}

/**
 * Time-per-op ratio of case `name` against case `baseline` from one compareOps() result: the median of
 * the per-round ratios. Both ran back to back in each round, so load that comes and goes on the machine
 * cancels out, which the ratio of two medians would not do.
 */
export function pairedSlowdown(results, name, baseline) {
  const a = results[name].samples;
  const b = results[baseline].samples;
  return median(a.map((ops, i) => b[i] / ops));
}

/** Time-per-op ratio of `value` against `baseline`, both in ops/s. */
export function slowdown(valueOpsPerSec, baselineOpsPerSec) {
  return baselineOpsPerSec / valueOpsPerSec;
}

function formatNumber(n) {
  if (n === undefined || n === null || Number.isNaN(n)) return '';
  if (typeof n === 'string') return n;
  const abs = Math.abs(n);
  if (abs >= 1e6) return `${(n / 1e6).toFixed(2)}M`;
  if (abs >= 1e4) return `${(n / 1e3).toFixed(1)}k`;
  if (abs >= 100) return n.toFixed(0);
  if (abs >= 10) return n.toFixed(1);
  return n.toFixed(2);
}

export function formatRatio(ratio, target) {
  if (ratio === undefined || ratio === null) return '';
  const shown = `${ratio.toFixed(2)}x`;
  if (target === undefined || target === null) return shown;
  return `${shown} (target <= ${target.toFixed(2)}x) ${ratio <= target ? 'ok' : 'OVER'}`;
}

/** Prints an aligned table; returns true when every row with a target met it. */
export function printTable(title, rows) {
  const header = ['case', 'baseline', 'value', 'unit', 'ratio'];
  const lines = rows.map((row) => [
    String(row.case),
    formatNumber(row.baseline),
    formatNumber(row.value),
    row.unit ?? '',
    formatRatio(row.ratio, row.target),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const render = (cells) =>
    cells
      .map((c, i) => (i === 0 || i === 3 || i === 4 ? c.padEnd(widths[i]) : c.padStart(widths[i])))
      .join('  ')
      .trimEnd();
  const out = [title, render(header), widths.map((w) => '-'.repeat(w)).join('  '), ...lines.map(render)];
  process.stdout.write(`${out.join('\n')}\n\n`);
  const allOk = rows.every(
    (row) => row.target === undefined || row.target === null || row.ratio <= row.target,
  );
  if (!allOk && process.env.BENCH_STRICT === '1') process.exitCode = 1;
  return allOk;
}
