// svc's container image (docs/image.md), run by runc, the OCI runtime under Docker and containerd:
// scripts/image-smoke.js unpacks the image with umoci and runs this file with node --test, as root (runc needs it).
// Each container runs as the image says (its user, its environment, its entrypoint) with the runtime settings the
// docs give: the host's network, a read-only root filesystem, the volume bound from a folder of this run, a tmpfs
// on /tmp. The CLI on the host is the built bin/run.js, run as the image's user so that the volume's files are its
// own; the receivers on the host are Python's standard library (test/binary/receiver.py) and, for the lease, a bare
// HTTP server that holds the first attempt.
import assert from 'node:assert/strict';
import {spawn, spawnSync} from 'node:child_process';
import {randomBytes} from 'node:crypto';
import {
  chmodSync,
  chownSync,
  copyFileSync,
  createReadStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import {createServer} from 'node:http';
import {createServer as createNetServer} from 'node:net';
import {tmpdir} from 'node:os';
import {dirname, join} from 'node:path';
import {after, before, describe, it} from 'node:test';
import {fileURLToPath} from 'node:url';
import {createGzip} from 'node:zlib';
import pg from 'pg';
import {parseAllDocuments} from 'yaml';
import {
  IMAGE_ARCHIVE,
  IMAGE_CACHE_DIR,
  IMAGE_DATA_DIR,
  IMAGE_ENTRYPOINT,
  IMAGE_GOALS,
  IMAGE_LAYOUT,
  IMAGE_TMP,
  IMAGE_USER,
  IMAGE_VOLUME,
  imageCommand,
} from '../../scripts/image-spec.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const TREE = join(HERE, '..', '..');
const {DELIVERY_HEADERS, EMULATOR_DEFAULT_PORT, VAULT_KEY_BYTES} = await import(
  join(TREE, 'dist', 'src', 'definitions.js')
);
const {READY_PATH} = await import(join(TREE, 'dist', 'src', 'emulator', 'control', 'openapi-route.js'));
const PYTHON = '/usr/bin/python3';
const DATABASE_URL = process.env.SVC_TEST_DATABASE_URL;
const VERSION = JSON.parse(readFileSync(join(TREE, 'package.json'), 'utf8')).version;
const LAYOUT = process.env.SVC_IMAGE_LAYOUT ?? join(TREE, IMAGE_LAYOUT);
const ARCHIVE = process.env.SVC_IMAGE_ARCHIVE ?? join(TREE, IMAGE_ARCHIVE);
assert.equal(process.getuid?.(), 0, 'run as root through scripts/image-smoke.js (runc needs it)');
assert.ok(existsSync(LAYOUT), `${LAYOUT} is missing: run \`npm run build:image\``);

const work = mkdtempSync(join(tmpdir(), 'svc-image-run-'));
// The image's user reaches the volumes and its home below; nothing else here is theirs.
chmodSync(work, 0o711);
const bundle = join(work, 'bundle');
const {uid, gid} = IMAGE_USER;
/** The image's own runtime configuration, as umoci unpacked it; each container below is a copy of it. */
let base;
/** The image's config (the OCI image config blob), for what runc's configuration has no place for. */
let imageConfig;

/** The image config blob of the layout's svc:<version>. */
function readImageConfig() {
  const blob = (digest) => join(LAYOUT, 'blobs', ...digest.split(':'));
  const index = JSON.parse(readFileSync(join(LAYOUT, 'index.json'), 'utf8'));
  const entry = index.manifests.find((m) => m.annotations?.['org.opencontainers.image.ref.name'] === VERSION);
  assert.ok(entry, `no svc:${VERSION} in ${LAYOUT}`);
  const manifest = JSON.parse(readFileSync(blob(entry.digest), 'utf8'));
  return {manifest, config: JSON.parse(readFileSync(blob(manifest.config.digest), 'utf8'))};
}

/** A folder owned by the image's user, closed to others: a volume, or the host CLI's home. */
function userFolder(name) {
  const dir = join(work, name);
  mkdirSync(dir, {recursive: true});
  chownSync(dir, uid, gid);
  chmodSync(dir, 0o700);
  return dir;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createNetServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const {port} = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Lines of a stream, each handed to the waiters that match it, or kept for those that come later. */
function lineReader(stream) {
  const lines = [];
  const waiters = [];
  let buffer = '';
  stream.on('data', (d) => {
    buffer += d;
    let nl = buffer.indexOf('\n');
    while (nl >= 0) {
      lines.push(buffer.slice(0, nl));
      buffer = buffer.slice(nl + 1);
      nl = buffer.indexOf('\n');
      for (const waiter of [...waiters]) waiter();
    }
  });
  return {
    lines,
    /** Resolves once `count` lines match `test` (rejects after `ms`, saying what it waited for). */
    until(test, count, what, ms = 120_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = lines.filter(test);
          if (found.length < count) return false;
          clearTimeout(timer);
          waiters.splice(waiters.indexOf(check), 1);
          resolve(found);
          return true;
        };
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(check), 1);
          reject(new Error(`${what}: ${lines.filter(test).length} of ${count} in ${ms / 1000} s`));
        }, ms);
        waiters.push(check);
        check();
      });
    },
  };
}

const running = new Set();
let serial = 0;

/**
 * Runs the image in a container of its own: the image's runtime configuration with the docs' settings (host
 * network, read-only root, the volume bound from `volume`, a tmpfs on /tmp), `args` after the entrypoint and `env`
 * added to the image's environment.
 */
function runContainer(
  name,
  {volume, args, command = [IMAGE_ENTRYPOINT, ...args], env = {}, user, mounts = []},
) {
  const dir = join(work, `container-${name}-${++serial}`);
  mkdirSync(dir);
  const config = structuredClone(base);
  config.root = {path: join(bundle, 'rootfs'), readonly: true};
  config.process.terminal = false;
  if (user) config.process.user = user;
  config.process.args = command;
  config.process.env = [...config.process.env, ...Object.entries(env).map(([k, v]) => `${k}=${v}`)];
  config.linux.namespaces = config.linux.namespaces.filter((ns) => ns.type !== 'network');
  config.mounts = [
    ...config.mounts.filter((m) => m.destination !== IMAGE_VOLUME),
    {destination: IMAGE_VOLUME, type: 'bind', source: volume, options: ['rbind', 'rw']},
    {destination: IMAGE_TMP, type: 'tmpfs', source: 'tmpfs', options: ['nosuid', 'nodev', 'mode=1777']},
    ...mounts,
  ];
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
  const id = `svc-image-smoke-${process.pid}-${serial}`;
  const child = spawn('runc', ['run', '--bundle', dir, id], {stdio: ['ignore', 'pipe', 'pipe']});
  running.add(id);
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const stdout = lineReader(child.stdout);
  const exited = new Promise((resolve) =>
    child.once('exit', (code, signal) => {
      running.delete(id);
      spawnSync('runc', ['delete', '--force', id], {stdio: 'ignore'});
      resolve(code ?? signal);
    }),
  );
  return {
    id,
    stdout,
    exited,
    stderr: () => stderr,
    /** A command in the running container, as its user with its environment. */
    exec: (command) => runAsync('runc', ['exec', id, ...command]),
    signal(name) {
      const r = spawnSync('runc', ['kill', id, name], {encoding: 'utf8'});
      assert.equal(r.status, 0, r.stderr);
    },
  };
}

/**
 * An emulator from the image, resolved once its ready line (--json) is out: the image's command on `port`, or
 * `command` as given.
 */
async function startEmulator(name, {volume, port, args = [], command, ...options}) {
  const c = runContainer(name, {
    volume,
    ...(command
      ? {command: [...command, '--json', ...args]}
      : {args: [...imageCommand(port), '--json', ...args]}),
    ...options,
  });
  const early = c.exited.then((code) => {
    throw new Error(`${name} exited ${code} before it was ready: ${c.stderr()}`);
  });
  const [line] = await Promise.race([
    c.stdout.until((l) => l.startsWith('{'), 1, `${name}: the ready line`, 90_000),
    early,
  ]);
  early.catch(() => {});
  return {...c, ready: JSON.parse(line), url: `http://127.0.0.1:${port}`};
}

function runAsync(command, args, options = {}) {
  const child = spawn(command, args, {stdio: ['ignore', 'pipe', 'pipe'], ...options});
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  return new Promise((resolve) =>
    child.on('close', (code) => resolve({code, stdout, stderr, json: () => JSON.parse(stdout)})),
  );
}

let hostHome;
/**
 * Whether the CLI of this tree runs as the image's user (every folder above the tree open to it): then it runs as
 * that user, and the volume's data dir is its own, as docs/image.md shows for a folder of your own.
 */
let asImageUser = false;
const BIN = join(TREE, 'bin', 'run.js');
/** SHELL: the image's user is in no user database of this host, where oclif would look for its shell. */
const hostEnvironment = () => ({PATH: process.env.PATH, HOME: hostHome, SHELL: '/bin/sh', NO_COLOR: '1'});

/** The CLI on the host (bin/run.js). */
async function cli(args, env = {}) {
  const r = await runAsync(process.execPath, [BIN, ...args], {
    ...(asImageUser ? {uid, gid} : {}),
    cwd: hostHome,
    env: {...hostEnvironment(), ...env},
  });
  assert.equal(r.code, 0, `svc ${args.join(' ')}: exit ${r.code}\n${r.stderr}`);
  return r;
}

/**
 * A control command of the emulator in `container` (these find it through its data dir, with its admin token):
 * from the host through the volume when the CLI runs there as the image's user, else inside the container, as
 * `docker exec` runs it. Both are in docs/image.md.
 */
async function control(container, volume, args) {
  if (asImageUser)
    return cli([...args, '--data-dir', join(volume, IMAGE_DATA_DIR.slice(IMAGE_VOLUME.length + 1))]);
  const r = await container.exec([IMAGE_ENTRYPOINT, ...args]);
  assert.equal(r.code, 0, `svc ${args.join(' ')} in the container: exit ${r.code}\n${r.stderr}`);
  return r;
}

/** The Python receiver (test/binary/receiver.py): verifies each delivery with its endpoint's signing secret. */
async function startReceiver(name) {
  const secretFile = join(work, `${name}.secret`);
  const child = spawn(PYTHON, [join(TREE, 'test', 'binary', 'receiver.py'), secretFile], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const out = lineReader(child.stdout);
  const [port] = await out.until(() => true, 1, `${name}: its port`, 20_000);
  return {
    url: `http://127.0.0.1:${port}/hook`,
    accept: (secret) => writeFileSync(secretFile, secret, {mode: 0o600}),
    deliveries: async (count) =>
      (await out.until((l) => l.startsWith('{'), count, `${name}: verified deliveries`)).map((l) =>
        JSON.parse(l),
      ),
    close: () => child.kill(),
  };
}

/** The documents of a YAML file of the tree (deploy/), as the runtimes read them (`<<` merges). */
function readYaml(path) {
  return parseAllDocuments(readFileSync(join(TREE, path), 'utf8'), {merge: true}).map((d) => d.toJS());
}

/** A text of a compose file as Compose hands it on: "$$" is a "$" it does not interpolate. */
function composeText(text) {
  return text.replaceAll('$$', '$');
}

/**
 * What the cache folder on a volume holds: the executable's program and files (binary-*), each entry with its size
 * and inode, and the names of the rest (the CLI's code cache, one file that each run may write again).
 */
function cacheListing(volume) {
  const cache = join(volume, IMAGE_CACHE_DIR.slice(IMAGE_VOLUME.length + 1));
  const walk = (dir) =>
    readdirSync(dir, {withFileTypes: true}).flatMap((entry) => {
      const path = join(dir, entry.name);
      const rel = path.slice(cache.length);
      if (!rel.startsWith('/binary-')) return [rel];
      const s = statSync(path);
      const line = `${rel} ${s.size} ${s.ino}`;
      return entry.isDirectory() ? [line, ...walk(path)] : [line];
    });
  return walk(cache).sort();
}

before(() => {
  const unpacked = spawnSync('umoci', ['unpack', '--image', `${LAYOUT}:${VERSION}`, bundle], {
    encoding: 'utf8',
  });
  assert.equal(unpacked.status, 0, unpacked.stderr);
  base = JSON.parse(readFileSync(join(bundle, 'config.json'), 'utf8'));
  imageConfig = readImageConfig();
  hostHome = userFolder('host-home');
  const probe = spawnSync(process.execPath, [BIN, '--version'], {
    uid,
    gid,
    cwd: hostHome,
    env: hostEnvironment(),
  });
  asImageUser = probe.status === 0;
  if (!asImageUser)
    console.log(`# ${BIN} cannot run as uid ${uid} here: control commands run inside the containers`);
});

after(() => {
  for (const id of running) spawnSync('runc', ['delete', '--force', id], {stdio: 'ignore'});
  rmSync(work, {recursive: true, force: true});
});

describe('the image under runc', () => {
  it('is configured as the docs say: entrypoint, default command, user, volume, port, health check, labels', () => {
    const {config} = imageConfig.config;
    assert.deepEqual(config.Entrypoint, [IMAGE_ENTRYPOINT]);
    assert.deepEqual(config.Cmd, imageCommand(EMULATOR_DEFAULT_PORT));
    assert.equal(config.User, `${uid}:${gid}`);
    assert.deepEqual(Object.keys(config.Volumes), [IMAGE_VOLUME]);
    assert.deepEqual(Object.keys(config.ExposedPorts), [`${EMULATOR_DEFAULT_PORT}/tcp`]);
    assert.ok(config.Env.includes(`SVC_EMULATOR_DATA_DIR=${IMAGE_DATA_DIR}`));
    assert.ok(config.Env.includes(`SVC_CACHE_DIR=${IMAGE_CACHE_DIR}`));
    assert.ok(config.Healthcheck.Test.at(-1).endsWith(READY_PATH), config.Healthcheck.Test.join(' '));
    for (const label of ['source', 'version', 'licenses', 'revision'])
      assert.ok(config.Labels[`org.opencontainers.image.${label}`], label);
    assert.equal(config.Labels['org.opencontainers.image.version'], VERSION);
    // runc runs what the image says: its user and its command.
    assert.deepEqual(base.process.user, {uid, gid});
    assert.deepEqual(base.process.args, [IMAGE_ENTRYPOINT, ...imageCommand(EMULATOR_DEFAULT_PORT)]);
    // Two layers: the system files, then svc alone.
    assert.equal(imageConfig.manifest.layers.length, 2);
  });

  it('answers svc --version, on a read-only root with only the volume written', async () => {
    const volume = userFolder('volume-version');
    const c = runContainer('version', {volume, args: ['--version']});
    const [line] = await c.stdout.until(() => true, 1, '--version');
    assert.equal(await c.exited, 0, c.stderr());
    assert.equal(line, `svc/${VERSION} linux-x64 node-${line.split(' node-')[1]}`);
    assert.match(line, / node-v\d+\.\d+\.\d+$/);
    // The launcher wrote its program to the cache on the volume, owner-only, and nothing else.
    assert.deepEqual(readdirSync(volume), ['cache']);
    assert.equal(statSync(join(volume, 'cache')).mode & 0o777, 0o700);
  });

  it('runs as whichever user the runtime gives it, in no user database (docker run --user)', async () => {
    const volume = join(work, 'volume-other-user');
    mkdirSync(volume);
    chownSync(volume, 4321, 4321);
    chmodSync(volume, 0o700);
    const c = runContainer('other-user', {
      volume,
      args: ['emulator', 'status'],
      user: {uid: 4321, gid: 4321},
    });
    // No emulator runs on this volume: status says so and exits 3, as anywhere.
    assert.equal(await c.exited, 3, c.stderr());
    const [line] = await c.stdout.until(() => true, 1, 'status');
    assert.equal(line, `No emulator is running for the data dir ${IMAGE_DATA_DIR}.`);
  });

  describe('an emulator from the image, on its volume', () => {
    let volume;
    let port;
    let emulator;
    let receiver;
    let endpoint;
    let key;
    const hostEnv = () => ({SVC_API_URL: emulator.url, SVC_API_KEY: key.secret});

    before(async () => {
      volume = userFolder('volume-one');
      port = await freePort();
      receiver = await startReceiver('python');
      emulator = await startEmulator('one', {volume, port, args: ['--allow-local-endpoints']});
    });
    after(async () => {
      receiver?.close();
      if (emulator && running.has(emulator.id)) {
        emulator.signal('KILL');
        await emulator.exited;
      }
    });

    it('serves the CLI on the host, and a Python receiver on the host verifies its delivery', async () => {
      assert.equal(emulator.ready.api_url, emulator.url);
      assert.equal(emulator.ready.data_dir, IMAGE_DATA_DIR);
      key = (
        await control(emulator, volume, ['emulator', 'keys', 'create', '--name', 'host', '--json'])
      ).json();
      endpoint = (
        await control(emulator, volume, [
          'emulator',
          'webhooks',
          'create',
          '--url',
          receiver.url,
          '--events',
          'sandbox.ready',
          '--json',
        ])
      ).json();
      receiver.accept(endpoint.secret);
      const org = (await cli(['org', '--json'], hostEnv())).json();
      assert.match(org.id, /^org_/);
      await control(emulator, volume, ['trigger', 'sandbox.ready', '--json']);
      const [delivery] = await receiver.deliveries(1);
      assert.equal(delivery.type, 'sandbox.ready');
    });

    it('runs svc emulator status and its health check inside the container', async () => {
      const status = await emulator.exec(['svc', 'emulator', 'status']);
      assert.equal(status.code, 0, status.stderr);
      assert.match(status.stdout, /^Emulator running \(pid 1\)$/m);
      assert.ok(status.stdout.includes(`Data dir:     ${IMAGE_DATA_DIR}`), status.stdout);
      // The image's health check, as Docker and Podman run it: it asks the ready route of the default port, so
      // it is run here against the port this emulator listens on.
      const test = imageConfig.config.config.Healthcheck.Test.slice(1);
      const health = await emulator.exec([
        ...test.slice(0, -1),
        test.at(-1).replace(`:${EMULATOR_DEFAULT_PORT}/`, `:${port}/`),
      ]);
      assert.equal(health.code, 0, health.stderr);
      assert.deepEqual(JSON.parse(health.stdout), {ready: true});
    });

    it('writes nothing outside the volume and /tmp', async () => {
      const root = await emulator.exec(['sh', '-c', 'echo x > /usr/local/bin/x']);
      assert.notEqual(root.code, 0);
      assert.match(root.stderr, /Read-only file system/);
      const tmp = await emulator.exec(['sh', '-c', 'echo x > /tmp/x && cat /tmp/x']);
      assert.equal(tmp.stdout, 'x\n', tmp.stderr);
    });

    it('exports a snapshot to the volume, which another container imports', async () => {
      const exported = await emulator.exec([
        'svc',
        'emulator',
        'export',
        '--out',
        `${IMAGE_VOLUME}/state.json`,
      ]);
      assert.equal(exported.code, 0, exported.stderr);
      const file = join(volume, 'state.json');
      assert.equal(statSync(file).mode & 0o777, 0o600);
      assert.equal(statSync(file).uid, uid);
      assert.equal(JSON.parse(readFileSync(file, 'utf8')).svc_emulator_snapshot, 1);

      const other = userFolder('volume-import');
      copyFileSync(file, join(other, 'state.json'));
      chownSync(join(other, 'state.json'), uid, gid);
      const second = await startEmulator('import', {
        volume: other,
        port: await freePort(),
        args: ['--allow-local-endpoints'],
      });
      try {
        const imported = await second.exec(['svc', 'emulator', 'import', `${IMAGE_VOLUME}/state.json`]);
        assert.equal(imported.code, 0, imported.stderr);
        const hooks = (
          await cli(['webhooks', 'list', '--json'], {SVC_API_URL: second.url, SVC_API_KEY: key.secret})
        ).json();
        assert.deepEqual(
          hooks.data.map((h) => h.id),
          [endpoint.id],
        );
      } finally {
        second.signal('TERM');
        assert.equal(await second.exited, 0, second.stderr());
      }
    });

    it('ends on SIGTERM as PID 1 within 5 s with exit 0, and a restart keeps keys and deliveries', async () => {
      const cache = cacheListing(volume);
      // Accepted just before the stop: delivered before it, or after the restart, never lost.
      await control(emulator, volume, ['trigger', 'sandbox.ready', '--json']);
      const stopping = Date.now();
      emulator.signal('TERM');
      assert.equal(await emulator.exited, 0, emulator.stderr());
      const stopMs = Date.now() - stopping;
      assert.ok(stopMs < IMAGE_GOALS.stopSeconds * 1000, `stopped in ${stopMs} ms`);
      console.log(`# SIGTERM to exit 0: ${stopMs} ms (at most ${IMAGE_GOALS.stopSeconds} s)`);

      emulator = await startEmulator('one-again', {volume, port, args: ['--allow-local-endpoints']});
      const delivered = await receiver.deliveries(2);
      assert.equal(new Set(delivered.map((d) => d.id)).size, 2);
      const listed = (await cli(['webhooks', 'deliveries', endpoint.id, '--json'], hostEnv())).json();
      assert.equal(listed.data.length, 2);
      // The launcher's cache on the volume is as it was: a start only checks it.
      assert.deepEqual(cacheListing(volume), cache);
      emulator.signal('TERM');
      assert.equal(await emulator.exited, 0, emulator.stderr());
    });
  });

  describe('two containers on one PostgreSQL, one as deploy/compose.yaml runs it, one as the Kubernetes Deployment does', {
    skip: !DATABASE_URL && 'SVC_TEST_DATABASE_URL is not set',
  }, () => {
    const schema = `svc_image_${randomBytes(6).toString('hex')}`;
    const secrets = {svc_vault_key: randomBytes(VAULT_KEY_BYTES).toString('base64')};
    const ports = {};
    const volumes = {};
    const containers = {};
    const compose = readYaml('deploy/compose.yaml')[0].services['emulator-1'];
    const deployment = readYaml('deploy/kubernetes/svc-emulator.yaml').find((d) => d.kind === 'Deployment');
    const pod = deployment.spec.template.spec;
    const [podContainer] = pod.containers;

    const sql = async (text) => {
      const client = new pg.Client({connectionString: DATABASE_URL});
      await client.connect();
      try {
        await client.query(text);
      } finally {
        await client.end();
      }
    };
    /** The port in a command (`--port N`) replaced by one free here: every container shares this host's network. */
    const onPort = (argv, port) => argv.map((arg, i) => (argv[i - 1] === '--port' ? String(port) : arg));
    const start = {
      // The compose service: its entrypoint reads the secrets' files; its volume is the user's, as a named volume is.
      a: (run = 'a') =>
        startEmulator(run, {
          volume: volumes.a,
          port: ports.a,
          command: [...compose.entrypoint.map(composeText), ...onPort(compose.command, ports.a)],
          args: ['--allow-local-endpoints'],
          mounts: compose.secrets.map((name) => ({
            destination: `/run/secrets/${name}`,
            type: 'bind',
            source: join(work, 'secrets', name),
            options: ['rbind', 'ro'],
          })),
        }),
      // The Deployment's container: its args, the Secret's values in its environment, its user, and an emptyDir
      // as its volume (a folder of root's that anyone may write, as the kubelet makes it).
      b: (run = 'b') =>
        startEmulator(run, {
          volume: volumes.b,
          port: ports.b,
          command: [IMAGE_ENTRYPOINT, ...onPort(podContainer.args, ports.b)],
          args: ['--allow-local-endpoints'],
          user: {uid: pod.securityContext.runAsUser, gid: pod.securityContext.runAsGroup},
          env: {
            SVC_EMULATOR_VAULT_KEY: secrets.svc_vault_key,
            SVC_EMULATOR_DATABASE_URL: secrets.svc_database_url,
          },
        }),
    };

    before(async () => {
      await sql(`CREATE SCHEMA ${schema}`);
      const url = new URL(DATABASE_URL);
      url.searchParams.set('options', `-c search_path=${schema}`);
      secrets.svc_database_url = url.toString();
      const dir = userFolder('secrets');
      for (const [name, value] of Object.entries(secrets)) {
        writeFileSync(join(dir, name), `${value}\n`, {mode: 0o600});
        chownSync(join(dir, name), uid, gid);
      }
      volumes.a = userFolder('volume-compose');
      volumes.b = join(work, 'volume-empty-dir');
      mkdirSync(volumes.b);
      chmodSync(volumes.b, 0o777);
      ports.a = await freePort();
      ports.b = await freePort();
    });
    after(async () => {
      for (const c of Object.values(containers)) {
        if (running.has(c.id)) {
          c.signal('KILL');
          await c.exited;
        }
      }
      await sql(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    });

    it('share state, and the survivor makes the delivery a SIGKILLed one held, after its lease', async () => {
      containers.a = await start.a();
      containers.b = await start.b();

      // A receiver that holds the first attempt open, and answers the next.
      const attempts = [];
      let arrived;
      const held = [];
      const server = createServer((req, res) => {
        req.resume();
        attempts.push(req.headers);
        arrived?.();
        if (attempts.length === 1) held.push(res);
        else res.end();
      });
      await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
      const nextAttempt = (count) =>
        new Promise((resolve) => {
          arrived = () => attempts.length >= count && resolve(attempts[count - 1]);
          arrived();
        });
      try {
        const key = (
          await control(containers.a, volumes.a, ['emulator', 'keys', 'create', '--name', 'team', '--json'])
        ).json();
        const hook = `http://127.0.0.1:${server.address().port}/hook`;
        const endpoint = (
          await control(containers.a, volumes.a, [
            'emulator',
            'webhooks',
            'create',
            '--url',
            hook,
            '--events',
            'sandbox.ready',
            '--json',
          ])
        ).json();
        // Made through a, read through b.
        const throughB = {SVC_API_URL: containers.b.url, SVC_API_KEY: key.secret};
        const hooks = (await cli(['webhooks', 'list', '--json'], throughB)).json();
        assert.deepEqual(
          hooks.data.map((h) => h.id),
          [endpoint.id],
        );

        // b stops cleanly, so a alone claims the next delivery; a is killed while its attempt is held.
        containers.b.signal('TERM');
        assert.equal(await containers.b.exited, 0, containers.b.stderr());
        await control(containers.a, volumes.a, ['trigger', 'sandbox.ready', '--json']);
        const first = await nextAttempt(1);
        containers.a.signal('KILL');
        await containers.a.exited;
        held[0].destroy();

        containers.b = await start.b('b-again');
        const second = await nextAttempt(2);
        const {eventId, attempt} = DELIVERY_HEADERS;
        assert.equal(second[eventId.toLowerCase()], first[eventId.toLowerCase()]);
        assert.equal(second[attempt.toLowerCase()], first[attempt.toLowerCase()]);
        containers.b.signal('TERM');
        assert.equal(await containers.b.exited, 0, containers.b.stderr());
      } finally {
        server.closeAllConnections();
        server.close();
      }
    });
  });

  it('is within its size goals: two layers, the docker-archive gzip\u2019d and unpacked', async () => {
    const gzipped = await new Promise((resolve, reject) => {
      let bytes = 0;
      createReadStream(ARCHIVE)
        .pipe(createGzip())
        .on('data', (d) => {
          bytes += d.length;
        })
        .on('end', () => resolve(bytes))
        .on('error', reject);
    });
    const du = spawnSync('du', ['-sb', join(bundle, 'rootfs')], {encoding: 'utf8'});
    const unpacked = Number(du.stdout.split('\t')[0]);
    const mb = (n) => n / 1024 / 1024;
    console.log(
      `# image: ${mb(gzipped).toFixed(1)} MB gzip'd (at most ${IMAGE_GOALS.compressedMb}), ` +
        `${mb(unpacked).toFixed(1)} MB unpacked (at most ${IMAGE_GOALS.unpackedMb})`,
    );
    assert.ok(mb(gzipped) <= IMAGE_GOALS.compressedMb);
    assert.ok(mb(unpacked) <= IMAGE_GOALS.unpackedMb);
  });
});
