// The package as users get it: `npm pack` (a clean build), installed into a fresh project. Its size (tarball,
// unpacked, a fresh install's node_modules) against the goals, beside the figures of the package before it
// was trimmed; `svc --version` from the install against `node -e 0`; and `svc emulator start --in-memory`
// to its ready line from the install against the same from this tree, runs interleaved.
import {spawn, spawnSync} from 'node:child_process';
import {mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {dirname, join} from 'node:path';
import {performance} from 'node:perf_hooks';
import {fileURLToPath} from 'node:url';
import {compareCommands, median, pairedTimeRatio, printTable} from './lib.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const MB = 1024 * 1024;
const RUNS = 5;
// What the package measured before it carried a compact template and only what runs (npm pack's figures).
const BEFORE = {tarball: 4.1, unpacked: 30.6, install: 126};

function npm(args, cwd) {
  const r = spawnSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`npm ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** Disk use as `du` counts it (blocks, not bytes), which is how the figure before was taken. */
function diskUseMb(path) {
  return Number(spawnSync('du', ['-sk', path], {encoding: 'utf8'}).stdout.split(/\s/)[0]) / 1024;
}

function readyMs(bin, cwd, env) {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(
      process.execPath,
      [bin, 'emulator', 'start', '--json', '--in-memory', '--port', '0'],
      {
        cwd,
        env,
      },
    );
    let done = false;
    child.stdout.on('data', () => {
      if (done) return;
      done = true;
      const ms = performance.now() - start;
      child.once('exit', () => resolve(ms));
      child.kill('SIGTERM');
    });
    child.on('exit', (code) => {
      if (!done) reject(new Error(`the emulator exited ${code} before it was ready`));
    });
  });
}

const work = mkdtempSync(join(tmpdir(), 'svc-bench-package-'));
try {
  // Packing builds first, and the build's own lines come before npm's JSON.
  const out = npm(['pack', '--json', '--pack-destination', work], root);
  const packed = JSON.parse(out.slice(out.search(/^\[/m)))[0];
  const tarball = join(work, packed.filename);
  const app = join(work, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), '{"name": "bench-app", "version": "1.0.0", "private": true}\n');
  npm(['install', tarball], app);
  const installed = diskUseMb(join(app, 'node_modules'));

  printTable('The package (sizes in MB; baseline: the package before; ratio: against the goal)', [
    {
      case: 'tarball',
      baseline: BEFORE.tarball,
      value: packed.size / MB,
      unit: 'MB',
      ratio: packed.size / MB / 3,
      target: 1,
    },
    {
      case: `unpacked (${packed.entryCount} files)`,
      baseline: BEFORE.unpacked,
      value: packed.unpackedSize / MB,
      unit: 'MB',
    },
    {
      case: 'fresh install, node_modules (du)',
      baseline: BEFORE.install,
      value: installed,
      unit: 'MB',
      ratio: installed / 100,
      target: 1,
    },
  ]);

  const bin = join(app, 'node_modules', 'svc', 'bin', 'run.js');
  const env = {
    ...process.env,
    NO_COLOR: '1',
    XDG_CACHE_HOME: join(work, 'cache'),
    XDG_DATA_HOME: join(work, 'data'),
  };
  const versions = compareCommands(
    {
      'node -e 0': [process.execPath, '-e', '0'],
      'svc --version (installed)': [process.execPath, bin, '--version'],
    },
    {runs: 10, env, cwd: app},
  );
  // The first run of an install compiles the CLI and keeps its code cache: both sides start warm.
  await readyMs(bin, app, env);
  await readyMs(join(root, 'bin', 'run.js'), root, env);
  const fromInstall = [];
  const fromTree = [];
  const ratios = [];
  for (let r = 0; r < RUNS; r++) {
    const a = await readyMs(bin, app, env);
    const b = await readyMs(join(root, 'bin', 'run.js'), root, env);
    fromInstall.push(a);
    fromTree.push(b);
    ratios.push(a / b);
  }
  printTable(`Start-up of the installed package (median of ${RUNS}, runs interleaved)`, [
    {
      case: 'svc --version, installed (baseline: node -e 0)',
      baseline: versions['node -e 0'].medianMs,
      value: versions['svc --version (installed)'].medianMs,
      unit: 'ms',
      ratio: pairedTimeRatio(versions, 'svc --version (installed)', 'node -e 0'),
      target: 1.1,
    },
    {
      case: 'emulator start --in-memory to ready, installed (baseline: the clone)',
      baseline: median(fromTree),
      value: median(fromInstall),
      unit: 'ms',
      ratio: median(ratios),
      target: 1.2,
    },
  ]);
} finally {
  rmSync(work, {recursive: true, force: true});
}
