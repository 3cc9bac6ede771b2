// `svc emulator start` to ready: cold (fresh data dir), warm (existing data dir) and in-memory, beside
// `node -e 0` as the baseline of a bare Node start; plus the resident memory of the idle emulator.
import {spawn, spawnSync} from 'node:child_process';
import {mkdtempSync, readFileSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {dirname, join} from 'node:path';
import {performance} from 'node:perf_hooks';
import {setTimeout as sleep} from 'node:timers/promises';
import {fileURLToPath} from 'node:url';
import {median, printTable} from './lib.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const RUNS = 5;

function nodeBaseline() {
  const start = performance.now();
  spawnSync(process.execPath, ['-e', '0']);
  return performance.now() - start;
}

/** Ms from spawn to the ready line, and the RSS (MB) after a moment of idling. */
function startOnce(args, {measureRss = false} = {}) {
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

const scratch = mkdtempSync(join(tmpdir(), 'svc-bench-start-'));
try {
  for (let i = 0; i < 3; i++) nodeBaseline();
  const base = [];
  const cold = [];
  const warm = [];
  const memory = [];
  let rss = [];
  for (let r = 0; r < RUNS; r++) {
    base.push(nodeBaseline());
    const dir = join(scratch, `run-${r}`);
    cold.push((await startOnce(['--data-dir', dir])).ms);
    const w = await startOnce(['--data-dir', dir], {measureRss: r === 0});
    warm.push(w.ms);
    if (w.rssMb) rss = [w.rssMb];
    memory.push((await startOnce(['--in-memory'])).ms);
  }
  const b = median(base);
  printTable('svc emulator start to ready (median of 5), against `node -e 0`', [
    {case: 'cold: fresh data dir', baseline: b, value: median(cold), unit: 'ms', ratio: median(cold) / b},
    {case: 'warm: existing data dir', baseline: b, value: median(warm), unit: 'ms', ratio: median(warm) / b},
    {case: 'in memory', baseline: b, value: median(memory), unit: 'ms', ratio: median(memory) / b},
  ]);
  printTable('Idle emulator resident memory, 2 s after ready (target 300 MB)', [
    {case: 'RSS', baseline: 300, value: rss[0], unit: 'MB', ratio: rss[0] / 300, target: 1},
  ]);
} finally {
  rmSync(scratch, {recursive: true, force: true});
}
