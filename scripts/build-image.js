// Builds svc's container image (docs/image.md) without a Docker daemon and without a base image: an OCI image
// layout in dist/image/svc-oci (tag svc:<version>) and a docker-archive, dist/image/svc-image.tar, for `docker
// load` and `podman load`. Two layers: the system files (a shell, the tools the executable's launcher runs, busybox's
// wget for the health check, the libraries they and Node need, /etc's few files, the volume's folder), each taken
// from the Debian package that installed it on this machine and checked against that package's checksums; then
// svc itself, the single executable of `npm run build:binary`. umoci makes the layout from the two layer archives,
// written here byte for byte (entries sorted, owners numeric, every time the same), and skopeo turns it into the
// docker-archive: two builds of the same commit give the same digest, and a new svc version changes only its
// own layer.
// `npm run build:image` (after `npm run build:binary`), or `node scripts/build-image.js [--binary FILE] [--out DIR]`.
import {spawnSync} from 'node:child_process';
import {createHash} from 'node:crypto';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import {dirname, join, posix, relative, resolve} from 'node:path';
import {fileURLToPath} from 'node:url';
import {LAUNCHER_TOOLS} from '../test/binary/machine.mjs';
import {elfNeeds} from './elf-needs.js';
import {
  IMAGE_ARCHIVE,
  IMAGE_BIN_DIR,
  IMAGE_ENTRYPOINT,
  IMAGE_ENV,
  IMAGE_LAYOUT,
  IMAGE_NAME,
  IMAGE_TMP,
  IMAGE_USER,
  IMAGE_VOLUME,
  imageCommand,
  imageHealthcheck,
} from './image-spec.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const log = (line) => console.error(`build-image: ${line}`);

function fail(message) {
  log(message);
  process.exit(1);
}

function option(name, fallback) {
  const at = process.argv.indexOf(name);
  return at >= 0 ? resolve(process.argv[at + 1] ?? '') : fallback;
}

function run(command, args, options = {}) {
  const r = spawnSync(command, args, {encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...options});
  if (r.error?.code === 'ENOENT') return {missing: true};
  if (r.error || r.status !== 0) {
    fail(
      `${command} ${args.join(' ')} failed: ${r.error?.message ?? (r.stderr || `exit ${r.status}`).trim()}`,
    );
  }
  return {stdout: r.stdout};
}

const BINARY = option('--binary', join(root, 'dist', 'binary', 'svc-linux-x64'));
const layoutDir = option('--out', undefined);
const LAYOUT = layoutDir ? join(layoutDir, 'svc-oci') : join(root, IMAGE_LAYOUT);
const ARCHIVE = layoutDir ? join(layoutDir, 'svc-image.tar') : join(root, IMAGE_ARCHIVE);

const TOOLS = {
  umoci: 'apt-get install umoci',
  skopeo: 'apt-get install skopeo',
  'dpkg-query': 'a Debian or Ubuntu machine',
};
for (const [tool, how] of Object.entries(TOOLS)) {
  if (spawnSync(tool, ['--version'], {stdio: 'ignore'}).error)
    fail(`${tool} is missing: the image is built with it (${how})`);
}
if (!existsSync(BINARY)) fail(`${relative(root, BINARY)} is missing: run \`npm run build:binary\` first`);
const DEFINITIONS = join(root, 'dist', 'src', 'definitions.js');
if (!existsSync(DEFINITIONS)) fail('dist/ is missing: run `npm run build` first');
const {EMULATOR_DEFAULT_PORT} = await import(DEFINITIONS);
const {READY_PATH} = await import(join(root, 'dist', 'src', 'emulator', 'control', 'openapi-route.js'));

const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const git = (args) => spawnSync('git', args, {cwd: root, encoding: 'utf8'}).stdout?.trim() || undefined;
const revision = git(['rev-parse', 'HEAD']) ?? 'unknown';
/** The time of svc's layer and of the config: SOURCE_DATE_EPOCH when given, else the commit's, so a rebuild is the same. */
const EPOCH = Number(process.env.SOURCE_DATE_EPOCH ?? git(['log', '-1', '--format=%ct']) ?? 0);
const created = new Date(EPOCH * 1000).toISOString().replace('.000Z', 'Z');
const source = String(pkg.repository?.url ?? pkg.repository ?? '')
  .replace(/^git\+/, '')
  .replace(/\.git$/, '');

// ── The system files, from this machine's Debian packages ────────────────────────────────────────────────────

/** Where the shared libraries are on a Debian machine and in the image (usr merged: /lib is usr/lib). */
const LIB_DIR = 'usr/lib/x86_64-linux-gnu';
const INTERPRETER = 'ld-linux-x86-64.so.2';

/** The programs of the system layer, by their path on this machine and in the image. */
const PROGRAMS = [
  ...LAUNCHER_TOOLS.filter((tool) => tool !== 'sh').map((tool) => `usr/bin/${tool}`),
  'usr/bin/dash',
  'usr/bin/busybox',
];

/** The paths dpkg may know a file by: usr merged, /usr/lib/x and /lib/x are one file. */
function dpkgNames(imagePath) {
  const names = [`/${imagePath}`];
  const merged = /^usr\/(bin|sbin|lib|lib64)\/(.*)$/.exec(imagePath);
  if (merged) names.push(`/${merged[1]}/${merged[2]}`);
  return names;
}

/** The file on this machine for a path of the image: at /usr/…, or at /bin/… on a machine whose usr is not merged. */
function hostPath(imagePath) {
  const found = dpkgNames(imagePath).find((path) => existsSync(path));
  if (!found) fail(`/${imagePath} is not on this machine (${hint(imagePath)})`);
  return found;
}

function hint(imagePath) {
  return imagePath.endsWith('busybox') ? 'apt-get install busybox' : 'a Debian package provides it';
}

/** Each package's files and checksums, read once from dpkg's database. */
const packages = new Map();
function packageOf(imagePath) {
  const out = spawnSync('dpkg-query', ['-S', ...dpkgNames(imagePath)], {encoding: 'utf8'}).stdout ?? '';
  const line = out.split('\n').find((l) => l.includes(': /'));
  if (!line) fail(`/${imagePath} belongs to no Debian package on this machine: it is taken only from one`);
  const name = line.slice(0, line.indexOf(': /')).split(', ')[0];
  if (!packages.has(name)) {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own format, not a template
    const format = '${Package} ${Version} ${db:Status-Abbrev}';
    const info = run('dpkg-query', ['-W', '-f', format, name]).stdout;
    const [base, version, status] = info.split(' ');
    if (status !== 'ii') fail(`the package ${name} is not fully installed (${status})`);
    const sums = new Map();
    const listed = run('dpkg-query', ['--control-path', name, 'md5sums']).stdout.trim();
    for (const entry of readFileSync(listed, 'utf8').split('\n')) {
      const m = /^([0-9a-f]{32}) {2}(.+)$/.exec(entry);
      if (m) sums.set(`/${m[2]}`, m[1]);
    }
    packages.set(name, {name: base, version, sums, status: run('dpkg-query', ['-s', name]).stdout});
  }
  return packages.get(name);
}

/** The bytes of a regular file of a package, checked against the package's own MD5 sums. */
function packagedFile(imagePath, realPath) {
  const pkgInfo = packageOf(imagePath);
  const bytes = readFileSync(realPath);
  const expected = dpkgNames(imagePath)
    .map((name) => pkgInfo.sums.get(name))
    .find(Boolean);
  const actual = createHash('md5').update(bytes).digest('hex');
  if (expected !== actual)
    fail(`/${imagePath} is not as the package ${pkgInfo.name} ${pkgInfo.version} installed it: reinstall it`);
  return bytes;
}

/** Entries of a layer, by path in the image: {type: 'dir'|'file'|'link', mode, uid, gid, bytes?, target?}. */
function layer() {
  const entries = new Map();
  const owned = (extra) => ({uid: 0, gid: 0, ...extra});
  const dir = (path, extra = {}) => {
    const parts = path.split('/');
    for (let i = 1; i < parts.length; i++) {
      const parent = parts.slice(0, i).join('/');
      if (!entries.has(parent)) entries.set(parent, owned({type: 'dir', mode: 0o755}));
    }
    entries.set(path, owned({type: 'dir', mode: 0o755, ...extra}));
  };
  return {
    entries,
    dir,
    file(path, bytes, mode = 0o644) {
      dir(posix.dirname(path));
      entries.set(path, owned({type: 'file', mode, bytes}));
    },
    link(path, target) {
      dir(posix.dirname(path));
      entries.set(path, owned({type: 'link', mode: 0o777, target}));
    },
  };
}

/** A program or library of this machine, with the link that names it when it is one, and what it needs. */
function addPackaged(system, imagePath, needed) {
  const host = hostPath(imagePath);
  if (lstatSync(host).isSymbolicLink()) {
    const target = readlinkSync(host);
    if (target.includes('/')) fail(`${host} links out of its folder (${target})`);
    packageOf(imagePath);
    system.link(imagePath, target);
    imagePath = posix.join(posix.dirname(imagePath), target);
  }
  const bytes = packagedFile(imagePath, realpathSync(host));
  const info = statSync(host);
  system.file(imagePath, bytes, info.mode & 0o755);
  newestPackaged = Math.max(newestPackaged, Math.floor(info.mtimeMs / 1000));
  for (const library of elfNeeds(bytes).libraries) needed.add(library);
}

/** The program svc runs, behind its launcher in the executable: what it needs is what the image must bring. */
function programOf(executable) {
  const head = executable.subarray(0, 64 * 1024).toString('latin1');
  const offset = Number(/^offset=(\d+)$/m.exec(head)?.[1]);
  if (!offset) fail(`${relative(root, BINARY)} is not svc's single executable (no launcher in front)`);
  return executable.subarray(offset);
}

const executable = readFileSync(BINARY);
const system = layer();
/**
 * The system layer's time: its packages' newest file, not the commit's, so that the layer stays the same blob from
 * one svc version to the next while the packages do.
 */
let newestPackaged = 0;
const needed = new Set(elfNeeds(programOf(executable)).libraries);
needed.add(INTERPRETER);
for (const program of PROGRAMS) addPackaged(system, program, needed);
const added = new Set();
while ([...needed].some((name) => !added.has(name))) {
  for (const name of [...needed]) {
    if (added.has(name)) continue;
    added.add(name);
    addPackaged(system, `${LIB_DIR}/${name}`, needed);
  }
}
// usr merged, as on Debian: the paths programs were built with (/lib64/ld-linux-x86-64.so.2, /bin/sh) lead to usr/.
for (const top of ['bin', 'lib', 'lib64', 'sbin']) system.link(top, `usr/${top}`);
system.link(`usr/lib64/${INTERPRETER}`, `../lib/x86_64-linux-gnu/${INTERPRETER}`);
system.link('usr/bin/sh', 'dash');
system.link('usr/bin/wget', 'busybox');
system.dir('usr/sbin');
// Each package's licence and what a scanner reads to know its version (as distroless images keep them).
for (const info of [...packages.values()].sort((a, b) => (a.name < b.name ? -1 : 1))) {
  const copyright = `/usr/share/doc/${info.name}/copyright`;
  // Some packages' doc folder is a link to another package's of the same source (libatomic1 to gcc-12-base).
  const real = existsSync(copyright) && realpathSync(copyright);
  if (real) system.file(copyright.slice(1), packagedFile(real.slice(1), real));
  system.file(`var/lib/dpkg/status.d/${info.name}`, Buffer.from(`${info.status.trim()}\n`));
}
const {name: user, uid, gid} = IMAGE_USER;
system.file(
  'etc/passwd',
  Buffer.from(
    `root:x:0:0:root:/root:/usr/bin/sh\n${user}:x:${uid}:${gid}:${user}:${IMAGE_VOLUME}:/usr/bin/sh\n`,
  ),
);
system.file('etc/group', Buffer.from(`root:x:0:\n${user}:x:${gid}:\n`));
system.file('etc/nsswitch.conf', Buffer.from('passwd: files\ngroup: files\nhosts: files dns\n'));
// Runtimes that bring their own (Docker, Podman, Kubernetes) mount theirs over it.
system.file('etc/hosts', Buffer.from('127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n'));
system.dir('root', {mode: 0o700});
system.dir(IMAGE_TMP.slice(1), {mode: 0o1777});
system.dir('proc');
system.dir('sys');
system.dir('dev');
system.dir(IMAGE_BIN_DIR.slice(1));
// The volume: the user's alone (a new named volume takes this folder's owner and mode).
system.dir(IMAGE_VOLUME.slice(1), {mode: 0o700, uid, gid});

const svcLayer = layer();
svcLayer.dir(IMAGE_BIN_DIR.slice(1));
svcLayer.file(`${IMAGE_BIN_DIR.slice(1)}/${IMAGE_ENTRYPOINT}`, executable, 0o755);

// ── Layer archives: POSIX ustar, byte for byte the same for the same entries ─────────────────────────────────

function octal(value, width) {
  return `${value.toString(8).padStart(width - 1, '0')}\0`;
}

function header(path, entry, mtime) {
  const h = Buffer.alloc(512);
  let name = entry.type === 'dir' ? `${path}/` : path;
  let prefix = '';
  if (Buffer.byteLength(name) > 100) {
    const cut = name.lastIndexOf('/', name.length - 2);
    prefix = name.slice(0, cut);
    name = name.slice(cut + 1);
    if (cut < 0 || Buffer.byteLength(name) > 100 || Buffer.byteLength(prefix) > 155)
      fail(`${path}: too long a path for a ustar header`);
  }
  h.write(name, 0, 'utf8');
  h.write(octal(entry.mode, 8), 100);
  h.write(octal(entry.uid, 8), 108);
  h.write(octal(entry.gid, 8), 116);
  h.write(octal(entry.type === 'file' ? entry.bytes.length : 0, 12), 124);
  h.write(octal(mtime, 12), 136);
  h.write(' '.repeat(8), 148);
  h.write({file: '0', link: '2', dir: '5'}[entry.type], 156);
  if (entry.type === 'link') h.write(entry.target, 157);
  h.write('ustar\x0000', 257, 'latin1');
  h.write(octal(0, 8), 329);
  h.write(octal(0, 8), 337);
  h.write(prefix, 345);
  let sum = 0;
  for (const byte of h) sum += byte;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  return h;
}

function tarOf(entries, mtime) {
  const parts = [];
  const paths = [...entries.keys()].sort((a, b) => {
    const x = a.split('/');
    const y = b.split('/');
    for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
    return x.length - y.length;
  });
  for (const path of paths) {
    const entry = entries.get(path);
    parts.push(header(path, entry, mtime));
    if (entry.type === 'file') {
      parts.push(entry.bytes);
      const pad = (512 - (entry.bytes.length % 512)) % 512;
      if (pad) parts.push(Buffer.alloc(pad));
    }
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

// ── The image ─────────────────────────────────────────────────────────────────────────────────────────────────

const started = Date.now();
const work = join(dirname(LAYOUT), '.work');
rmSync(work, {recursive: true, force: true});
rmSync(LAYOUT, {recursive: true, force: true});
rmSync(ARCHIVE, {force: true});
mkdirSync(work, {recursive: true});
const systemTar = join(work, 'system.tar');
const svcTar = join(work, 'svc.tar');
writeFileSync(systemTar, tarOf(system.entries, newestPackaged));
writeFileSync(svcTar, tarOf(svcLayer.entries, EPOCH));
const listed = [...packages.values()].map((p) => `${p.name} ${p.version}`).sort();
log(`system layer: ${system.entries.size} entries from ${listed.join(', ')}`);

const version = pkg.version;
const ref = `${LAYOUT}:${version}`;
run('umoci', ['init', '--layout', LAYOUT]);
run('umoci', ['new', '--image', ref]);
const history = (what) => ['--history.created', created, '--history.created_by', what];
run('umoci', [
  'raw',
  'add-layer',
  '--image',
  ref,
  ...history('system files from Debian packages'),
  systemTar,
]);
run('umoci', ['raw', 'add-layer', '--image', ref, ...history(`svc ${version} (single executable)`), svcTar]);
const labels = {
  'org.opencontainers.image.title': IMAGE_NAME,
  'org.opencontainers.image.description': pkg.description ?? 'svc',
  'org.opencontainers.image.version': version,
  'org.opencontainers.image.revision': revision,
  'org.opencontainers.image.source': source,
  'org.opencontainers.image.licenses': pkg.license,
  'org.opencontainers.image.created': created,
};
const repeated = (flag, values) => values.flatMap((value) => [flag, value]);
run('umoci', [
  'config',
  '--image',
  ref,
  '--no-history',
  '--created',
  created,
  '--architecture',
  'amd64',
  '--os',
  'linux',
  '--config.user',
  `${uid}:${gid}`,
  '--config.workingdir',
  IMAGE_VOLUME,
  '--config.stopsignal',
  'SIGTERM',
  '--config.exposedports',
  `${EMULATOR_DEFAULT_PORT}/tcp`,
  '--config.volume',
  IMAGE_VOLUME,
  '--config.entrypoint',
  IMAGE_ENTRYPOINT,
  ...repeated('--config.cmd', imageCommand(EMULATOR_DEFAULT_PORT)),
  ...repeated(
    '--config.env',
    Object.entries(IMAGE_ENV).map(([k, v]) => `${k}=${v}`),
  ),
  ...repeated(
    '--config.label',
    Object.entries(labels).map(([k, v]) => `${k}=${v}`),
  ),
]);

/**
 * The health check, which umoci has no flag for: Docker's field in the image's config (Podman reads it from a
 * docker-archive), written into the config and the manifest and index that name it.
 */
function addHealthcheck() {
  const blob = (digest) => join(LAYOUT, 'blobs', ...digest.split(':'));
  const put = (value) => {
    const bytes = Buffer.from(JSON.stringify(value));
    const digest = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
    writeFileSync(blob(digest), bytes);
    return {digest, size: bytes.length};
  };
  const s = 1_000_000_000;
  const index = JSON.parse(readFileSync(join(LAYOUT, 'index.json'), 'utf8'));
  const entry = index.manifests.find((m) => m.annotations?.['org.opencontainers.image.ref.name'] === version);
  const manifest = JSON.parse(readFileSync(blob(entry.digest), 'utf8'));
  const config = JSON.parse(readFileSync(blob(manifest.config.digest), 'utf8'));
  config.config.Healthcheck = {
    Test: imageHealthcheck(EMULATOR_DEFAULT_PORT, READY_PATH),
    Interval: 10 * s,
    Timeout: 5 * s,
    // The first start on a new volume writes the executable's files there (a few seconds).
    StartPeriod: 60 * s,
    StartInterval: 1 * s,
    Retries: 3,
  };
  manifest.config = {...manifest.config, ...put(config)};
  Object.assign(entry, put(manifest));
  writeFileSync(join(LAYOUT, 'index.json'), JSON.stringify(index));
  run('umoci', ['gc', '--layout', LAYOUT]);
  return {digest: entry.digest, manifest};
}
const {digest, manifest} = addHealthcheck();

run('skopeo', ['copy', '--quiet', `oci:${ref}`, `docker-archive:${ARCHIVE}:${IMAGE_NAME}:${version}`]);
rmSync(work, {recursive: true, force: true});

const mb = (n) => `${(n / 1024 / 1024).toFixed(1)} MB`;
const layers = manifest.layers.map((l) => mb(l.size)).join(' + ');
log(
  `${relative(root, LAYOUT)} (${IMAGE_NAME}:${version}, ${digest}): layers ${layers} gzip'd; ` +
    `${relative(root, ARCHIVE)}: ${mb(statSync(ARCHIVE).size)} (${Date.now() - started} ms)`,
);
// The digest alone on stdout, for scripts that compare two builds.
process.stdout.write(`${digest}\n`);
