// svc as one executable (docs/binary.md), on a machine as it would be without Node: scripts/binary-smoke.js copies
// the executable far from the tree and runs this file with node --test. Every svc here is that file, started with a
// PATH that holds no node (a folder of links to the few system tools the run needs: a shell and what the launcher
// runs, python3, tmux), and every receiver is Python's standard library. Only this test's own driving (spawning, the MCP client) runs on Node.
import assert from 'node:assert/strict';
import {spawn, spawnSync} from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import {get as httpGet} from 'node:http';
import {tmpdir} from 'node:os';
import {dirname, join} from 'node:path';
import {after, before, describe, it} from 'node:test';
import {fileURLToPath} from 'node:url';
import {LAUNCHER_TOOLS, linkTools} from './machine.mjs';

const BIN = process.env.SVC_BINARY;
assert.ok(BIN && existsSync(BIN), 'run through scripts/binary-smoke.js (SVC_BINARY names the executable)');
const HERE = dirname(fileURLToPath(import.meta.url));
const TREE = join(HERE, '..', '..');
const PYTHON = '/usr/bin/python3';
const TMUX = '/usr/bin/tmux';

const work = mkdtempSync(join(tmpdir(), 'svc-binary-run-'));
const home = join(work, 'home');
/** The only folder on the PATH: links to the system tools the run needs, and no node. */
const tools = join(work, 'tools');
mkdirSync(home);
mkdirSync(tools);
linkTools(tools, [...LAUNCHER_TOOLS, PYTHON, TMUX, 'env', 'true']);

function userEnv(extra = {}) {
  return {
    PATH: tools,
    HOME: home,
    XDG_CONFIG_HOME: join(home, 'config'),
    XDG_DATA_HOME: join(home, 'data'),
    XDG_CACHE_HOME: join(home, 'cache'),
    NO_COLOR: '1',
    TERM: 'xterm-256color',
    ...extra,
  };
}

function run(command, args, {env = userEnv(), input = '', cwd = work, timeoutMs = 240_000} = {}) {
  const r = spawnSync(command, args, {cwd, env, input, encoding: 'utf8', timeout: timeoutMs});
  return {code: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '', error: r.error};
}
const svc = (args, options) => run(BIN, args, options);

/** Runs svc without blocking the event loop; resolves with its exit code and output. */
function svcAsync(args, env) {
  const child = spawn(BIN, args, {cwd: work, env, stdio: ['ignore', 'pipe', 'pipe']});
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({code, stdout, stderr})));
}

/** The folder the executable keeps its files in, under the cache directory of `env`. */
function filesFolder(env) {
  const base = join(env.XDG_CACHE_HOME, 'svc');
  const folders = readdirSync(base).filter((name) => /^binary-[0-9a-f]{16}$/.test(name));
  assert.equal(folders.length, 1, folders.join(', '));
  return join(base, folders[0]);
}

/** Starts a long-running svc and resolves once `ready(stdout so far)` returns a value. */
function startSvc(args, env, ready, what) {
  const child = spawn(BIN, args, {cwd: work, env, stdio: ['ignore', 'pipe', 'pipe']});
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => {
    err += d;
  });
  const exited = new Promise((done) => child.once('exit', (code, signal) => done(code ?? signal)));
  const stop = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    return exited;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what}: not ready in 90 s; stderr: ${err}`)), 90_000);
    const early = (code) => reject(new Error(`${what} exited ${code} before it was ready: ${err}`));
    child.once('exit', early);
    const check = () => {
      const value = ready(out, err);
      if (value === undefined) return;
      clearTimeout(timer);
      child.off('exit', early);
      resolve({value, stop, stderr: () => err});
    };
    child.stdout.on('data', (d) => {
      out += d;
      check();
    });
    child.stderr.on('data', check);
  });
}

function startEmulator(args, env) {
  return startSvc(
    ['emulator', 'start', '--json', ...args],
    env,
    (out) => {
      const line = out.split('\n').find((l) => l.startsWith('{'));
      return line ? JSON.parse(line) : undefined;
    },
    'svc emulator start',
  );
}

/** The Python receiver (receiver.py): verifies with the secret in its secret file and reports what it accepted. */
async function startReceiver(name) {
  const secretFile = join(work, `${name}.secret`);
  const child = spawn(PYTHON, [join(HERE, 'receiver.py'), secretFile], {
    env: {PATH: tools},
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = [];
  let buffer = '';
  child.stdout.on('data', (d) => {
    buffer += d;
    let nl = buffer.indexOf('\n');
    while (nl >= 0) {
      lines.push(buffer.slice(0, nl));
      buffer = buffer.slice(nl + 1);
      nl = buffer.indexOf('\n');
    }
  });
  const waitLines = async (count, ms = 60_000) => {
    const deadline = Date.now() + ms;
    while (lines.length < count) {
      if (Date.now() > deadline) throw new Error(`${name}: ${lines.length - 1} of ${count - 1} deliveries`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  await waitLines(1, 20_000);
  return {
    url: `http://127.0.0.1:${lines[0]}/hook`,
    accept: (secret) => writeFileSync(secretFile, secret, {mode: 0o600}),
    /** Resolves with the deliveries accepted so far once there are `count` of them. */
    async deliveries(count) {
      await waitLines(count + 1);
      return lines.slice(1).map((line) => JSON.parse(line));
    },
    close: () => child.kill(),
  };
}

before(() => {
  // The premise of every test here: nothing on this PATH is node.
  const probe = run('/bin/sh', ['-c', 'command -v node'], {env: userEnv()});
  assert.notEqual(probe.code, 0, `node is on the test PATH: ${probe.stdout}`);
  assert.ok(!BIN.startsWith(TREE), `${BIN} is inside the source tree`);
});

after(() => rmSync(work, {recursive: true, force: true}));

describe('the single executable, with no node on the PATH', () => {
  it('answers --version and --help, and keeps its files owner-only in a folder named after its build', () => {
    const version = svc(['--version']);
    assert.equal(version.code, 0, version.stderr);
    assert.match(version.stdout, /^svc\/\d+\.\d+\.\d+ linux-x64 node-v26\.\d+\.\d+\n$/);

    const help = svc(['--help']);
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout, /emulator/);
    assert.equal(help.stderr, '');

    const folder = filesFolder(userEnv());
    assert.equal(statSync(folder).mode & 0o777, 0o700);
    for (const file of [
      'package.json',
      'dist/cli/bundle.cjs',
      'node_modules/@electric-sql/pglite/dist/pglite.wasm',
    ]) {
      assert.equal(statSync(join(folder, file)).mode & 0o777, 0o600, file);
    }
  });

  it('writes its folder again, with a warning, when it is open to others or a file was altered', () => {
    const env = userEnv({XDG_CACHE_HOME: join(home, 'cache-tampered')});
    assert.equal(svc(['events', 'schema', 'sandbox.ready'], {env}).code, 0);
    const folder = filesFolder(env);
    // Two of the ways it can differ (test/binary/cache.test.ts goes through all of them): each run after one
    // warns once, writes the folder again, and runs the command.
    const tamperings = [
      ['open to other users', () => chmodSync(folder, 0o755)],
      [
        'differs from the build',
        () => {
          const bundle = join(folder, 'dist/cli/bundle.cjs');
          const bytes = readFileSync(bundle);
          bytes[bytes.length - 2] ^= 1;
          writeFileSync(bundle, bytes);
        },
      ],
    ];
    for (const [reason, tamper] of tamperings) {
      tamper();
      const r = svc(['events', 'schema', 'sandbox.ready'], {env});
      assert.equal(r.code, 0, r.stderr);
      assert.ok(r.stderr.includes('warning') && r.stderr.includes(reason), `${reason}: ${r.stderr}`);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      JSON.parse(r.stdout);
      // Whole again: the next run says nothing.
      const next = svc(['events', 'schema', 'sandbox.ready'], {env});
      assert.equal(next.stderr, '');
      assert.equal(statSync(folder).mode & 0o777, 0o700);
    }
  });

  it('runs the first hour: emulator, key, login, endpoint, trigger, a Python receiver verifying, account page', async () => {
    const emulator = await startEmulator(
      ['--in-memory', '--port', '0', '--allow-local-endpoints'],
      userEnv(),
    );
    // An emulator in memory is found through the folder its ready line names.
    const env = userEnv({SVC_EMULATOR_DATA_DIR: emulator.value.data_dir});
    const receiver = await startReceiver('first-hour');
    try {
      const api = emulator.value.api_url;
      // A hint before login names the executable as it can be run from here (no address yet: usage, exit 2).
      const before = svc(['org'], {env});
      assert.equal(before.code, 2);
      assert.ok(before.stderr.includes(`\`${BIN} login --api-url URL\``), before.stderr);

      const key = JSON.parse(svc(['emulator', 'keys', 'create', '--name', 'binary', '--json'], {env}).stdout);
      assert.match(key.secret, /^svc_[0-9A-Za-z]{40}$/);
      const login = svc(['login', '--api-url', api], {env, input: key.secret});
      assert.equal(login.code, 0, login.stderr);
      assert.match(JSON.parse(svc(['org', '--json'], {env}).stdout).id, /^org_/);
      assert.equal(svc(['keys', 'list', '--json'], {env}).code, 0);

      const created = svc(
        ['emulator', 'webhooks', 'create', '--url', receiver.url, '--events', 'sandbox.ready', '--json'],
        {env},
      );
      assert.equal(created.code, 0, created.stderr);
      const endpoint = JSON.parse(created.stdout);
      receiver.accept(endpoint.secret);
      const triggered = svc(['trigger', 'sandbox.ready', '--json'], {env});
      assert.equal(triggered.code, 0, triggered.stderr);
      const [delivery] = await receiver.deliveries(1);
      assert.equal(delivery.type, 'sandbox.ready');

      const listed = JSON.parse(svc(['webhooks', 'deliveries', endpoint.id, '--json'], {env}).stdout);
      const id = listed.data[0].id;
      const shown = JSON.parse(svc(['webhooks', 'deliveries', 'show', id, '--json'], {env}).stdout);
      assert.equal(shown.attempts[0].status_code, 200);
      assert.equal(JSON.parse(svc(['webhooks', 'list', '--json'], {env}).stdout).data.length, 1);

      // What Python accepted, svc accepts too; a byte changed, it refuses.
      const payloadFile = join(work, 'delivered.json');
      writeFileSync(payloadFile, delivery.body);
      const secretEnv = {...env, SVC_WEBHOOK_SECRET: endpoint.secret};
      const verify = (file) =>
        svc(['webhooks', 'verify', '--header', delivery.header, '--payload-file', file], {env: secretEnv});
      assert.equal(verify(payloadFile).code, 0);
      writeFileSync(payloadFile, `${delivery.body} `);
      assert.notEqual(verify(payloadFile).code, 0);

      // svc signs, Python verifies.
      const sent = svc(['webhooks', 'send', receiver.url, '--type', 'sandbox.ready', '--json'], {
        env: secretEnv,
      });
      assert.equal(sent.code, 0, sent.stderr);
      assert.equal((await receiver.deliveries(2))[1].type, 'sandbox.ready');
      const graded = svc(['webhooks', 'test-receiver', receiver.url, '--only', 'valid', '--json'], {
        env: secretEnv,
      });
      assert.ok(graded.stdout.includes('"valid"'), graded.stdout + graded.stderr);

      const page = await accountPage(api);
      assert.equal(page.status, 200);
      assert.match(page.body, /<html/i);

      await toolsOverMcp(env);
      await tuiFirstScreen(env, receiver.url);
      await listens(env);
      // Run without blocking this process: the emulator it stops writes to pipes this process reads.
      const stopped = await svcAsync(['emulator', 'stop'], env);
      assert.equal(stopped.code, 0, stopped.stderr);
    } finally {
      receiver.close();
      assert.equal(await emulator.stop(), 0, emulator.stderr());
    }
  });

  it('runs emulator exec, in memory and on a data dir, and start and status on a data dir', async () => {
    const env = userEnv({XDG_CONFIG_HOME: join(home, 'exec-config')});
    const probe = [
      'import json, os, urllib.request',
      'r = urllib.request.Request(os.environ["SVC_API_URL"] + "/v1/org", headers={"Authorization": "Bearer " + os.environ["SVC_API_KEY"]})',
      'print(json.load(urllib.request.urlopen(r))["id"])',
    ].join('\n');
    const inMemory = svc(['emulator', 'exec', '--', PYTHON, '-c', probe], {env});
    assert.equal(inMemory.code, 0, inMemory.stderr);
    assert.match(inMemory.stdout, /^org_/);
    const dataDir = join(work, 'exec-data');
    const onDisk = svc(['emulator', 'exec', '--data-dir', dataDir, '--', PYTHON, '-c', probe], {env});
    assert.equal(onDisk.code, 0, onDisk.stderr);
    assert.equal(
      onDisk.stdout,
      svc(['emulator', 'exec', '--data-dir', dataDir, '--', PYTHON, '-c', probe], {env}).stdout,
    );
    // The command's own exit code comes back.
    assert.equal(svc(['emulator', 'exec', '--', '/bin/sh', '-c', 'exit 7'], {env}).code, 7);
    // The executable carries the database template whole (PostgreSQL's pg_filenode.map files included): no start,
    // here or in the tests before, made one in the cache, which would mean initdb at every user's first start.
    assert.deepEqual(
      readdirSync(join(env.XDG_CACHE_HOME, 'svc')).filter((name) => name.includes('template')),
      [],
    );

    const started = await startEmulator(['--data-dir', dataDir, '--port', '0'], env);
    const status = JSON.parse(svc(['emulator', 'status', '--data-dir', dataDir, '--json'], {env}).stdout);
    assert.equal(status.api_url, started.value.api_url);
    // Stopped as a terminal stops it (`svc emulator stop` has its turn in the first hour).
    assert.equal(await started.stop(), 0, started.stderr());
  });

  it('runs the emulator on PostgreSQL with --database-url', {skip: skipWithoutPostgres()}, async () => {
    const pg = (await import('pg')).default;
    const schema = `svc_binary_${process.pid}`;
    const admin = new pg.Client({connectionString: process.env.SVC_TEST_DATABASE_URL});
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    try {
      const url = new URL(process.env.SVC_TEST_DATABASE_URL);
      url.searchParams.set('options', `-c search_path=${schema}`);
      const r = svc(
        [
          'emulator',
          'exec',
          '--database-url',
          url.toString(),
          '--',
          '/bin/sh',
          '-c',
          'test -n "$SVC_API_KEY"',
        ],
        {env: userEnv({XDG_CONFIG_HOME: join(home, 'pg-config')})},
      );
      assert.equal(r.code, 0, r.stderr);
      const tables = await admin.query('SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = $1', [
        schema,
      ]);
      assert.ok(tables.rows[0].n > 0, 'the emulator made no tables in its schema');
    } finally {
      await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    }
  });
});

/** GET /account at the emulator's own name (svc-<port>.localhost), which this machine need not resolve. */
function accountPage(api) {
  const {port} = new URL(api);
  return new Promise((resolve, reject) => {
    const req = httpGet(
      {
        host: '127.0.0.1',
        port,
        path: '/account',
        headers: {host: `svc-${port}.localhost:${port}`, accept: 'text/html'},
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d) => {
          body += d;
        });
        res.on('end', () => resolve({status: res.statusCode, body}));
      },
    );
    req.on('error', reject);
  });
}

function skipWithoutPostgres() {
  if (process.env.SVC_TEST_DATABASE_URL) return false;
  assert.notEqual(process.env.CI, 'true', 'CI runs this with SVC_TEST_DATABASE_URL set');
  return 'SVC_TEST_DATABASE_URL is not set';
}

/** The MCP SDK's client lists the tools of `svc mcp` (the executable) over stdio; `mcp config` names the file. */
async function toolsOverMcp(env) {
  const {Client} = await import('@modelcontextprotocol/sdk/client/index.js');
  const {StdioClientTransport} = await import('@modelcontextprotocol/sdk/client/stdio.js');
  const config = JSON.parse(svc(['mcp', 'config', '--client', 'claude', '--json'], {env}).stdout);
  const server = config.config.mcpServers.svc;
  assert.equal(server.command, BIN);
  const client = new Client({name: 'binary-smoke', version: '1.0.0'});
  await client.connect(
    new StdioClientTransport({command: server.command, args: server.args, env, cwd: '/', stderr: 'pipe'}),
  );
  try {
    const {tools} = await client.listTools();
    const names = tools.map((t) => t.name);
    assert.ok(names.includes('get_org') && names.includes('list_deliveries'), names.join(', '));
  } finally {
    await client.close();
  }
}

/** `svc tui` in a real terminal (tmux, its server started with the same PATH): the first screen lists the endpoint. */
async function tuiFirstScreen(env, endpointUrl) {
  const socket = join(work, 'tmux.sock');
  const tmux = (args) => run(TMUX, ['-S', socket, ...args], {env: {...env, TMUX: ''}});
  const session = 'svc-binary';
  const started = tmux(['new-session', '-d', '-s', session, '-x', '160', '-y', '30', BIN, 'tui']);
  assert.equal(started.code, 0, started.stderr);
  try {
    const deadline = Date.now() + 60_000;
    let screen = '';
    while (!screen.includes(endpointUrl)) {
      assert.ok(Date.now() < deadline, `the TUI did not show the endpoint in 60 s:\n${screen}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
      screen = tmux(['capture-pane', '-p', '-t', session]).stdout;
    }
    tmux(['send-keys', '-t', session, 'q']);
    const gone = Date.now() + 10_000;
    while (tmux(['has-session', '-t', session]).code === 0) {
      assert.ok(Date.now() < gone, 'the TUI did not quit on q');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    tmux(['kill-server']);
  }
}

/** `svc listen` forwards the emulator's deliveries to a second Python receiver, signed with the relay's secret. */
async function listens(env) {
  const receiver = await startReceiver('listen');
  try {
    const secret = svc(['listen', '--print-secret'], {env});
    assert.equal(secret.code, 0, secret.stderr);
    receiver.accept(secret.stdout.trim());
    const listener = await startSvc(
      ['listen', '--forward-to', receiver.url, '--json'],
      env,
      (out) =>
        out
          .split('\n')
          .map((l) => (l.startsWith('{') ? JSON.parse(l) : {}))
          .find((l) => l.type === 'ready'),
      'svc listen',
    );
    assert.equal(listener.value.secret, secret.stdout.trim());
    try {
      assert.equal(svc(['trigger', 'sandbox.ready', '--json'], {env}).code, 0);
      const [forwarded] = await receiver.deliveries(1);
      assert.equal(forwarded.type, 'sandbox.ready');
    } finally {
      await listener.stop();
    }
  } finally {
    receiver.close();
  }
}
