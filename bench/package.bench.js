// The packages as users get them: `npm pack` (a clean build) of @svc/cli, @svc/webhooks and @svc/client, each
// installed alone into a fresh project. The CLI's size (tarball, unpacked, a fresh install's node_modules)
// against its goals, beside the figures of the package before it was trimmed; the libraries' sizes and
// dependency counts against theirs; `svc --version` from the install against `node -e 0`; and
// `svc emulator start --in-memory` to its ready line from the install against the same from this tree;
// `startEmulator({inMemory: true})` in a fresh process from the install, on an empty HOME and a cold cache,
// against the same from this tree; and `svc emulator exec -- true` on an empty HOME against a warm one. Runs
// interleaved.
import {spawn, spawnSync} from 'node:child_process';
import {mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {dirname, join} from 'node:path';
import {performance} from 'node:perf_hooks';
import {fileURLToPath, pathToFileURL} from 'node:url';
import {compareCommands, median, pairedTimeRatio, printTable} from './lib.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const MB = 1024 * 1024;
const kB = 1024;
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

/** Bytes of every file under `dir`, as npm counts a package's unpacked size (not disk blocks). */
function bytesUnder(dir) {
  return readdirSync(dir, {recursive: true, withFileTypes: true})
    .filter((e) => e.isFile())
    .reduce((sum, e) => sum + statSync(join(e.parentPath ?? e.path, e.name)).size, 0);
}

/** Every package a project's install holds besides its own dependencies' roots: `npm ls --all`, counted. */
function installedPackages(app) {
  const count = (node) =>
    Object.values(node.dependencies ?? {}).reduce((sum, child) => sum + 1 + count(child), 0);
  return count(JSON.parse(npm(['ls', '--all', '--json'], app)));
}

function freshProject(path) {
  mkdirSync(path);
  writeFileSync(join(path, 'package.json'), '{"name": "bench-app", "version": "1.0.0", "private": true}\n');
  return path;
}

/** The environment of a person who never ran svc: an empty HOME, no cache, no data. */
function emptyHome(work, name) {
  const home = mkdtempSync(join(work, `home-${name}-`));
  return {
    ...process.env,
    NO_COLOR: '1',
    HOME: home,
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CONFIG_HOME: join(home, '.config'),
  };
}

/** Spawn to exit of a child that starts an in-memory emulator with startEmulator() and stops it. */
function libraryStartMs(entryUrl, cwd, env) {
  const script = `const {startEmulator} = await import(${JSON.stringify(entryUrl)});
const emulator = await startEmulator({inMemory: true, port: 0});
await emulator.stop();`;
  const start = performance.now();
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {cwd, env, encoding: 'utf8'});
  if (r.status !== 0) throw new Error(`startEmulator from ${entryUrl}: ${r.stderr}`);
  return performance.now() - start;
}

/** Spawn to exit of `svc emulator exec -- true`. */
function execTrueMs(bin, cwd, env) {
  const start = performance.now();
  const r = spawnSync(process.execPath, [bin, 'emulator', 'exec', '--', 'true'], {
    cwd,
    env,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`emulator exec -- true: ${r.stderr}`);
  return performance.now() - start;
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
  const app = freshProject(join(work, 'app'));
  npm(['install', tarball], app);
  const installed = diskUseMb(join(app, 'node_modules'));

  // The libraries, packed from their folders after the build above, each installed alone.
  const libs = JSON.parse(
    npm(['pack', '-w', 'src/webhooks', '-w', 'src/client', '--json', '--pack-destination', work], root),
  );
  const lib = {};
  for (const packedLib of libs) {
    const project = freshProject(join(work, packedLib.name.replace(/\W/g, '-')));
    npm(['install', join(work, packedLib.filename)], project);
    lib[packedLib.name] = {
      packed: packedLib.size,
      installed: bytesUnder(join(project, 'node_modules')),
      own: bytesUnder(join(project, 'node_modules', ...packedLib.name.split('/'))),
      // Everything in the install but the library itself.
      dependencies: installedPackages(project) - 1,
    };
  }
  const webhooks = lib['@svc/webhooks'];
  const client = lib['@svc/client'];
  printTable('The libraries, each installed alone (ratio: against the goal)', [
    {
      case: '@svc/webhooks tarball',
      value: webhooks.packed / kB,
      unit: 'kB',
      ratio: webhooks.packed / kB / 25,
      target: 1,
    },
    {
      case: '@svc/webhooks installed (file bytes)',
      value: webhooks.installed / kB,
      unit: 'kB',
      ratio: webhooks.installed / kB / 150,
      target: 1,
    },
    {
      case: '@svc/webhooks dependencies',
      value: webhooks.dependencies,
      unit: 'packages',
      ratio: webhooks.dependencies,
      target: 0,
    },
    {
      case: `@svc/client installed (file bytes; the client alone ${(client.own / kB).toFixed(0)} kB)`,
      value: client.installed / MB,
      unit: 'MB',
      ratio: client.installed / MB / 8,
      target: 1,
    },
    {case: '@svc/client dependencies', value: client.dependencies, unit: 'packages'},
  ]);

  printTable('@svc/cli (sizes in MB; baseline: the package before; ratio: against the goal)', [
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

  const bin = join(app, 'node_modules', '@svc', 'cli', 'bin', 'run.js');
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
  // The library from the install and from the tree, each in a fresh process on an empty HOME (a cold cache).
  const installedEntry = pathToFileURL(
    join(app, 'node_modules', '@svc', 'cli', 'dist', 'src', 'emulator', 'index.js'),
  ).href;
  const treeEntry = pathToFileURL(join(root, 'dist', 'src', 'emulator', 'index.js')).href;
  const library = {install: [], tree: [], ratios: []};
  const exec = {cold: [], warm: [], ratios: []};
  const warmHome = emptyHome(work, 'warm');
  execTrueMs(bin, app, warmHome);
  for (let r = 0; r < RUNS; r++) {
    const a = libraryStartMs(installedEntry, app, emptyHome(work, 'lib'));
    const b = libraryStartMs(treeEntry, root, emptyHome(work, 'lib'));
    library.install.push(a);
    library.tree.push(b);
    library.ratios.push(a / b);
    const cold = execTrueMs(bin, app, emptyHome(work, 'exec'));
    const warm = execTrueMs(bin, app, warmHome);
    exec.cold.push(cold);
    exec.warm.push(warm);
    exec.ratios.push(cold / warm);
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
    {
      case: 'startEmulator({inMemory}) in a fresh process, installed, empty HOME (baseline: the clone)',
      baseline: median(library.tree),
      value: median(library.install),
      unit: 'ms',
      ratio: median(library.ratios),
      target: 1.1,
    },
    {
      case: 'svc emulator exec -- true, empty HOME (baseline: a warm HOME)',
      baseline: median(exec.warm),
      value: median(exec.cold),
      unit: 'ms',
      ratio: median(exec.ratios),
      target: 1.2,
    },
  ]);
} finally {
  rmSync(work, {recursive: true, force: true});
}
