// svc's container image (dist/image, `npm run build:image`; docs/image.md) against its goals (issue 45):
// - the docker-archive gzip'd (target <= 60 MB) and the image unpacked (target <= 180 MB), each layer's size;
// - start to /_emulator/ready (spawn to the ready line of `emulator start --json` on a kept data dir) of the
//   emulator in a container under runc (host network, read-only root, the volume bound, its user) against the same
//   executable started on the host (target <= 1.2x). Both start from a kept cache: the executable's program and
//   files written once before anything is measured. This row needs root and runc; without them it is left out.
import {spawn, spawnSync} from 'node:child_process';
import {
  chmodSync,
  chownSync,
  createReadStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import {tmpdir} from 'node:os';
import {dirname, join} from 'node:path';
import {performance} from 'node:perf_hooks';
import {fileURLToPath} from 'node:url';
import {createGzip} from 'node:zlib';
import {
  IMAGE_ARCHIVE,
  IMAGE_ENTRYPOINT,
  IMAGE_GOALS,
  IMAGE_LAYOUT,
  IMAGE_TMP,
  IMAGE_USER,
  IMAGE_VOLUME,
  imageCommand,
} from '../scripts/image-spec.js';
import {median, printTable} from './lib.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const LAYOUT = join(root, IMAGE_LAYOUT);
const ARCHIVE = join(root, IMAGE_ARCHIVE);
const BINARY = join(root, 'dist', 'binary', 'svc-linux-x64');
const RUNS = 5;
const PORT = 47_310;

if (!existsSync(LAYOUT) || !existsSync(ARCHIVE)) {
  process.stdout.write('image: no image in dist/image; run `npm run build:image` first\n');
  process.exit(0);
}
const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
const mb = (n) => n / 1024 / 1024;

function gzippedSize(file) {
  return new Promise((resolve, reject) => {
    let bytes = 0;
    createReadStream(file)
      .pipe(createGzip())
      .on('data', (d) => {
        bytes += d.length;
      })
      .on('end', () => resolve(bytes))
      .on('error', reject);
  });
}

/** Ms from spawn to the ready line; then stops it with SIGTERM (via `stop`) and waits for its end. */
function readyOnce(command, args, options, stop) {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(command, args, {...options, stdio: ['ignore', 'pipe', 'ignore']});
    let out = '';
    let ms;
    child.stdout.on('data', (d) => {
      out += d;
      if (ms !== undefined || !out.includes('\n')) return;
      ms = performance.now() - start;
      stop(child);
    });
    child.on('exit', (code) =>
      ms === undefined ? reject(new Error(`${command} exited ${code} before ready`)) : resolve(ms),
    );
  });
}

const blob = (digest) => join(LAYOUT, 'blobs', ...digest.split(':'));
const index = JSON.parse(readFileSync(join(LAYOUT, 'index.json'), 'utf8'));
const manifest = JSON.parse(readFileSync(blob(index.manifests[0].digest), 'utf8'));
const gzipped = mb(await gzippedSize(ARCHIVE));
const scratch = mkdtempSync(join(tmpdir(), 'svc-bench-image-'));
try {
  const unpack = spawnSync('umoci', ['unpack', '--image', `${LAYOUT}:${version}`, join(scratch, 'bundle')]);
  const du = spawnSync('du', ['-sb', join(scratch, 'bundle', 'rootfs')], {encoding: 'utf8'});
  const unpacked = unpack.status === 0 ? mb(Number(du.stdout.split('\t')[0])) : Number.NaN;
  const rows = [
    {
      case: "docker-archive gzip'd",
      baseline: IMAGE_GOALS.compressedMb,
      value: gzipped,
      unit: 'MB',
      ratio: gzipped / IMAGE_GOALS.compressedMb,
      target: 1,
    },
    {
      case: 'image unpacked',
      baseline: IMAGE_GOALS.unpackedMb,
      value: unpacked,
      unit: 'MB',
      ratio: unpacked / IMAGE_GOALS.unpackedMb,
      target: 1,
    },
    ...manifest.layers.map((layer, i) => ({
      case: `layer ${i + 1} (${i === 0 ? 'system files' : 'svc'}), gzip'd`,
      value: mb(layer.size),
      unit: 'MB',
    })),
  ];

  const canRun =
    unpack.status === 0 &&
    process.getuid?.() === 0 &&
    !spawnSync('runc', ['--version']).error &&
    existsSync(BINARY);
  if (canRun) {
    const {uid, gid} = IMAGE_USER;
    const volume = join(scratch, 'volume');
    const hostCache = join(scratch, 'host');
    for (const dir of [volume, hostCache]) {
      mkdirSync(dir);
      chownSync(dir, uid, gid);
      chmodSync(dir, 0o700);
    }
    chmodSync(scratch, 0o711);
    const config = JSON.parse(readFileSync(join(scratch, 'bundle', 'config.json'), 'utf8'));
    config.root.readonly = true;
    config.process.terminal = false;
    config.process.args = [IMAGE_ENTRYPOINT, ...imageCommand(PORT), '--json'];
    config.linux.namespaces = config.linux.namespaces.filter((ns) => ns.type !== 'network');
    config.mounts = [
      ...config.mounts.filter((m) => m.destination !== IMAGE_VOLUME),
      {destination: IMAGE_VOLUME, type: 'bind', source: volume, options: ['rbind', 'rw']},
      {destination: IMAGE_TMP, type: 'tmpfs', source: 'tmpfs', options: ['nosuid', 'nodev', 'mode=1777']},
    ];
    writeFileSync(join(scratch, 'bundle', 'config.json'), JSON.stringify(config));
    let serial = 0;
    const container = () => {
      const id = `svc-bench-image-${process.pid}-${++serial}`;
      return readyOnce('runc', ['run', '--bundle', join(scratch, 'bundle'), id], {}, () =>
        spawnSync('runc', ['kill', id, 'TERM']),
      ).finally(() => spawnSync('runc', ['delete', '--force', id], {stdio: 'ignore'}));
    };
    // The same executable, user and command on the host, its cache and data dir kept in a folder of its own.
    const host = () =>
      readyOnce(
        BINARY,
        [...imageCommand(PORT), '--json', '--data-dir', join(hostCache, 'data')],
        {
          uid,
          gid,
          cwd: hostCache,
          env: {HOME: hostCache, SVC_CACHE_DIR: join(hostCache, 'cache'), SHELL: '/bin/sh'},
        },
        (child) => child.kill('SIGTERM'),
      );
    await container();
    await host();
    const ready = {container: [], host: []};
    for (let r = 0; r < RUNS; r++) {
      const order = r % 2 === 0 ? ['container', 'host'] : ['host', 'container'];
      for (const name of order) ready[name].push(await (name === 'container' ? container() : host()));
    }
    rows.push({
      case: 'start to ready: container under runc vs the executable on the host',
      baseline: median(ready.host),
      value: median(ready.container),
      unit: 'ms',
      ratio: median(ready.container.map((ms, i) => ms / ready.host[i])),
      target: IMAGE_GOALS.readyRatio,
    });
  } else {
    process.stdout.write('image: start to ready left out (needs root, runc and dist/binary/svc-linux-x64)\n');
  }
  printTable(`container image svc:${version}`, rows);
} finally {
  rmSync(scratch, {recursive: true, force: true});
}
