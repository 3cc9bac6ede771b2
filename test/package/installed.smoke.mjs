// @svc/cli as users get it: run from a folder where it was installed from its tarball, far from the source
// tree (scripts/package-smoke.js packs it, installs it locally and into a global prefix, and runs this file
// there with node --test). Everything here goes through the installed copy: its bin, its entry points, its
// emulator with the template it ships, and the two libraries it carries (@svc/webhooks and @svc/client come
// from their own installs: a receiver or a script depends on them, not on the CLI).
import assert from 'node:assert/strict';
import {spawn, spawnSync} from 'node:child_process';
import {mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync} from 'node:fs';
import {createServer} from 'node:http';
import {tmpdir} from 'node:os';
import {delimiter, join} from 'node:path';
import {after, describe, it} from 'node:test';
import {createRequire} from 'node:module';
import {fileURLToPath, pathToFileURL} from 'node:url';

const APP = realpathSync(process.cwd());
const LOCAL_BIN = join(APP, 'node_modules', '.bin', 'svc');
const GLOBAL_BIN = process.env.SVC_SMOKE_GLOBAL_BIN;
const TARBALL = process.env.SVC_SMOKE_CLI_TARBALL;
const TREE = process.env.SVC_SMOKE_TREE;
const WEBHOOKS_APP = process.env.SVC_SMOKE_WEBHOOKS_APP;
const CLIENT_APP = process.env.SVC_SMOKE_CLIENT_APP;
assert.ok(GLOBAL_BIN && TARBALL && WEBHOOKS_APP && CLIENT_APP, 'run through scripts/package-smoke.js');
const INSTALLED = join(APP, 'node_modules', '@svc', 'cli');
/** An address for commands that must not reach anything: they stop at the missing key. */
const NOWHERE = 'http://127.0.0.1:9';
// The Node under test first: `svc`'s shebang and npx run on it.
const SYSTEM_PATH = [join(process.execPath, '..'), '/usr/local/bin', '/usr/bin', '/bin'].join(delimiter);

/** A library from the project it was installed into alone. */
function importFrom(app, entry) {
  return import(pathToFileURL(createRequire(join(app, 'package.json')).resolve(entry)).href);
}

const home = mkdtempSync(join(tmpdir(), 'svc-smoke-home-'));
/**
 * What a person's machine brings besides their folders: how it reaches the registry (proxies, the certificate
 * authorities it trusts, npm's own settings; scripts/package-smoke.js names them). Without them, npx on a machine
 * behind a TLS-inspecting proxy waits on failing fetches until the test gives up.
 */
const NETWORK = Object.fromEntries(
  (process.env.SVC_SMOKE_NETWORK_VARS ?? '')
    .split(',')
    .filter(Boolean)
    .map((name) => [name, process.env[name]]),
);
/** A person's environment: their own folders, svc on the PATH only when installed globally. */
function userEnv(extra = {}) {
  return {
    ...NETWORK,
    PATH: SYSTEM_PATH,
    HOME: home,
    XDG_CONFIG_HOME: join(home, 'config'),
    XDG_DATA_HOME: join(home, 'data'),
    XDG_CACHE_HOME: join(home, 'cache'),
    // npm's own cache stays where it was, so npx finds the dependencies the installs already fetched.
    npm_config_cache: process.env.npm_config_cache,
    NO_COLOR: '1',
    ...extra,
  };
}

function run(command, args, {env = userEnv(), input = '', cwd = APP, timeoutMs = 60_000} = {}) {
  const r = spawnSync(command, args, {cwd, env, input, encoding: 'utf8', timeout: timeoutMs});
  return {code: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '', error: r.error};
}

/** The installed package answers from itself, never from the tree it was built in. */
function assertInstalled(resolved, base) {
  const path = resolved.startsWith('file:') ? fileURLToPath(resolved) : resolved;
  assert.ok(path.startsWith(base), `${path} is not under ${base}`);
  if (TREE) assert.ok(!path.startsWith(TREE), `${path} is in the source tree`);
}

/** Starts `svc emulator start … --json` and resolves with its ready line and a stop function. */
function startEmulator(bin, args, env) {
  const child = spawn(bin, ['emulator', 'start', '--json', ...args], {
    cwd: APP,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => {
    err += d;
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ready line in 60 s; stderr: ${err}`)), 60_000);
    child.on('exit', (code) => reject(new Error(`the emulator exited ${code} before it was ready: ${err}`)));
    child.stdout.on('data', (d) => {
      out += d;
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (!line) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      const stop = () =>
        new Promise((done) => {
          if (child.exitCode !== null) return done(child.exitCode);
          child.once('exit', done);
          child.kill('SIGTERM');
        });
      resolve({ready: JSON.parse(line), stop, stderr: () => err});
    });
  });
}

/**
 * A receiver on loopback that verifies every delivery with the installed @svc/webhooks/node. It listens before
 * its endpoint exists (the endpoint needs its URL); the signing secret the endpoint gets is handed over after.
 */
async function startReceiver() {
  const {createNodeHandler} = await importFrom(WEBHOOKS_APP, '@svc/webhooks/node');
  const events = [];
  /** Waiters for a count of verified events, told as each event arrives (nothing is read on a timer). */
  const waiters = new Set();
  const verified = (event, delivery) => {
    events.push({event, delivery});
    for (const w of [...waiters]) w();
  };
  let handle;
  const server = createServer((req, res) => {
    if (!handle) {
      res.writeHead(503).end();
      return;
    }
    handle(req, res);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/hook`,
    events,
    acceptSecret(secret) {
      handle = createNodeHandler({secret, onEvent: (event, delivery) => void verified(event, delivery)});
    },
    /** Resolves once `count` deliveries were verified; rejects after `ms`. */
    received(count, ms = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (events.length < count) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`${events.length} of ${count} verified deliveries in ${ms} ms`));
        }, ms);
        waiters.add(check);
        check();
      });
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** Talks JSON-RPC to `svc mcp` over its stdio, as an MCP client does. */
async function mcpToolNames(bin, env) {
  const child = spawn(bin, ['mcp'], {cwd: APP, env, stdio: ['pipe', 'pipe', 'pipe']});
  let buffer = '';
  const answers = new Map();
  child.stdout.on('data', (d) => {
    buffer += d;
    let nl = buffer.indexOf('\n');
    while (nl >= 0) {
      const message = JSON.parse(buffer.slice(0, nl));
      buffer = buffer.slice(nl + 1);
      if (message.id !== undefined) answers.set(message.id, message);
      nl = buffer.indexOf('\n');
    }
  });
  const send = (message) => child.stdin.write(`${JSON.stringify(message)}\n`);
  const answer = async (id) => {
    const deadline = Date.now() + 20_000;
    while (!answers.has(id)) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`svc mcp gave no answer ${id}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return answers.get(id);
  };
  try {
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {protocolVersion: '2025-06-18', capabilities: {}, clientInfo: {name: 'smoke', version: '1'}},
    });
    assert.equal((await answer(1)).result.serverInfo.name, 'svc');
    send({jsonrpc: '2.0', method: 'notifications/initialized'});
    send({jsonrpc: '2.0', id: 2, method: 'tools/list'});
    return (await answer(2)).result.tools.map((t) => t.name);
  } finally {
    child.kill();
  }
}

/** The first command a hint quotes (`…`), run in a shell from where the hint was printed. */
function runHint(text, env, cwd = APP) {
  const quoted = [...text.matchAll(/`([^`]+)`/g)]
    .map((m) => m[1])
    .find((c) => /(^|\s|\/)svc(\s|$)|run\.js/.test(c));
  assert.ok(quoted, `no svc command quoted in: ${text}`);
  return {command: quoted, ...run('sh', ['-c', quoted.replace(/ < key\.txt$/, ' </dev/null')], {env, cwd})};
}

describe('the installed package', () => {
  it('resolves @svc/cli/emulator, and the libraries it carries, from its own install', async () => {
    assertInstalled(import.meta.resolve('@svc/cli/emulator'), INSTALLED);
    const {startEmulator: start} = await import('@svc/cli/emulator');
    assert.equal(typeof start, 'function');
    // @svc/webhooks and @svc/client travel inside the tarball (bundleDependencies), at this very version.
    const cli = createRequire(join(INSTALLED, 'package.json'));
    const version = JSON.parse(readFileSync(join(INSTALLED, 'package.json'), 'utf8')).version;
    for (const library of ['@svc/webhooks', '@svc/client']) {
      const resolved = cli.resolve(library);
      assertInstalled(resolved, join(APP, 'node_modules'));
      const manifest = JSON.parse(readFileSync(cli.resolve(`${library}/package.json`), 'utf8'));
      assert.equal(manifest.version, version, library);
    }
  });

  it('starts the emulator from @svc/cli/emulator and delivers a signed event that @svc/webhooks/node verifies', async () => {
    const {startEmulator: start} = await import('@svc/cli/emulator');
    const emu = await start({inMemory: true, port: 0, allowLocalEndpoints: true});
    const receiver = await startReceiver();
    try {
      const endpoint = await emu.control.createWebhook({url: receiver.url, events: ['sandbox.ready']});
      receiver.acceptSecret(endpoint.secret);
      const key = await emu.control.createKey({name: 'smoke'});
      const {createClient} = await importFrom(CLIENT_APP, '@svc/client');
      const client = createClient({apiUrl: emu.apiUrl, apiKey: key.secret});
      assert.equal((await client.getOrg()).id, emu.orgId);
      await emu.control.trigger({type: 'sandbox.ready'});
      await receiver.received(1);
      assert.equal(receiver.events[0].event.type, 'sandbox.ready');
      assert.equal(receiver.events[0].delivery.attempt, 1);
    } finally {
      await receiver.close();
      await emu.stop();
    }
  });

  it('runs the CLI from a local install: emulator on the default data dir, login, endpoint, trigger, show, MCP, TUI', async () => {
    const env = userEnv();
    const svc = (args, options = {}) => run(LOCAL_BIN, args, {env, ...options});
    const emulator = await startEmulator(LOCAL_BIN, ['--port', '0', '--allow-local-endpoints'], env);
    const receiver = await startReceiver();
    try {
      const api = emulator.ready.api_url;
      assert.equal(emulator.ready.data_dir, join(home, 'data', 'svc', 'emulator'));

      const key = JSON.parse(svc(['emulator', 'keys', 'create', '--name', 'smoke', '--json']).stdout);
      assert.match(key.secret, /^svc_[0-9A-Za-z]{40}$/);
      const login = svc(['login', '--api-url', api], {input: key.secret});
      assert.equal(login.code, 0, login.stderr);
      const org = JSON.parse(svc(['org', '--json']).stdout);
      assert.match(org.id, /^org_/);

      const created = svc([
        'emulator',
        'webhooks',
        'create',
        '--url',
        receiver.url,
        '--events',
        'sandbox.ready',
        '--json',
      ]);
      assert.equal(created.code, 0, created.stderr);
      const endpoint = JSON.parse(created.stdout);
      receiver.acceptSecret(endpoint.secret);
      assert.equal(svc(['trigger', 'sandbox.ready', '--json']).code, 0);
      await receiver.received(1);

      const deliveries = JSON.parse(svc(['webhooks', 'deliveries', endpoint.id, '--json']).stdout);
      const id = receiver.events[0].delivery.deliveryId;
      assert.ok(
        deliveries.data.some((d) => d.id === id),
        `${id} not listed`,
      );
      // The receiver verified the event before answering, and the emulator records the attempt after the answer:
      // polled through the installed CLI, which has no command that waits for an attempt.
      let shown;
      let detail;
      for (const deadline = Date.now() + 30_000; ; ) {
        shown = svc(['webhooks', 'deliveries', 'show', id, '--json']);
        assert.equal(shown.code, 0, shown.stderr);
        detail = JSON.parse(shown.stdout);
        if (detail.attempts.length > 0 || Date.now() > deadline) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(detail.attempts[0].status_code, 200);
      assert.equal(detail.event.type, 'sandbox.ready');

      const tools = await mcpToolNames(LOCAL_BIN, env);
      assert.ok(tools.includes('get_org') && tools.includes('list_deliveries'), tools.join(', '));

      await showsTuiFirstScreen(LOCAL_BIN, env, receiver.url);
    } finally {
      await receiver.close();
      assert.equal(await emulator.stop(), 0, emulator.stderr());
    }
  });

  it('prints hints, from a local install, that run as printed from the project and its subfolders', () => {
    // An address named but no key: the hint says how to log in there (nothing listens; no request is made).
    const env = userEnv({XDG_CONFIG_HOME: join(home, 'nobody-config'), SVC_API_URL: NOWHERE});
    const sub = join(APP, 'src', 'deep');
    mkdirSync(sub, {recursive: true});
    for (const cwd of [APP, sub]) {
      const r = run(LOCAL_BIN, ['org'], {env, cwd});
      assert.equal(r.code, 4);
      assert.match(r.stderr, /`npx svc login --api-url /);
      // npx finds the project's own svc: the hinted login runs (and, given no key, asks for one on stdin).
      const hint = runHint(r.stderr, {...env, npm_config_cache: process.env.npm_config_cache}, cwd);
      assert.equal(hint.code, 2, `${hint.command}: ${hint.stderr}`);
      assert.match(hint.stderr, /standard input|stdin/i);
    }
    // Stack traces name the installed files, on the first run and on the next, which runs from the code cache
    // the first one kept (a cache made elsewhere would name the folder it was made in).
    for (let i = 0; i < 2; i++) {
      const debug = run(LOCAL_BIN, ['org', '--debug'], {env});
      const frames = debug.stderr.split('\n').filter((line) => /^\s+at .*\//.test(line));
      assert.ok(frames.length > 0, debug.stderr);
      for (const frame of frames) assert.ok(!TREE || !frame.includes(TREE), frame);
      assert.ok(
        frames.some((frame) => frame.includes(INSTALLED)),
        debug.stderr,
      );
    }
    // An editor starts the MCP server from its own folder with its own PATH: the snippet must still run.
    const config = JSON.parse(
      run(LOCAL_BIN, ['mcp', 'config', '--client', 'claude', '--json'], {env}).stdout,
    );
    const server = config.config.mcpServers.svc;
    assert.ok(server.command.startsWith('/'), `not an absolute command: ${server.command}`);
    const version = run(server.command, [...server.args.slice(0, -1), '--version'], {
      env: {PATH: '/nonexistent'},
      cwd: '/',
    });
    assert.match(version.stdout, /^svc\/\d+\.\d+\.\d+/);
  });

  it('runs from a global install: svc on the PATH, a data dir, emulator exec, and hints spelled svc', async () => {
    const env = userEnv({
      PATH: `${GLOBAL_BIN}${delimiter}${SYSTEM_PATH}`,
      XDG_CONFIG_HOME: join(home, 'global-config'),
    });
    const version = run('svc', ['--version'], {env, cwd: home});
    assert.match(version.stdout, /^svc\/\d+\.\d+\.\d+ /);
    assertInstalled(realpathSync(join(GLOBAL_BIN, 'svc')), realpathSync(join(GLOBAL_BIN, '..')));

    const probe =
      'fetch(process.env.SVC_API_URL + "/v1/org", {headers: {authorization: "Bearer " + process.env.SVC_API_KEY}}).then(async (r) => { if (r.status !== 200) process.exit(3); console.log((await r.json()).id); })';
    const exec = run('svc', ['emulator', 'exec', '--', process.execPath, '-e', probe], {env, cwd: home});
    assert.equal(exec.code, 0, exec.stderr);
    assert.match(exec.stdout, /^org_/);

    const dataDir = join(home, 'global-data-dir');
    const emulator = await startEmulator('svc', ['--data-dir', dataDir, '--port', '0'], env);
    try {
      assert.equal(emulator.ready.data_dir, dataDir);
      const status = run('svc', ['emulator', 'status', '--data-dir', dataDir, '--json'], {env, cwd: home});
      assert.equal(JSON.parse(status.stdout).api_url, emulator.ready.api_url);
    } finally {
      assert.equal(await emulator.stop(), 0, emulator.stderr());
    }
    const nowhere = {...env, SVC_API_URL: NOWHERE};
    const r = run('svc', ['org'], {env: nowhere, cwd: home});
    assert.equal(r.code, 4, r.stderr);
    const hint = runHint(r.stderr, nowhere, home);
    assert.match(hint.command, /^svc login/);
    assert.equal(hint.code, 2, hint.stderr);
  });

  it('runs through npx in an empty folder', () => {
    const empty = mkdtempSync(join(tmpdir(), 'svc-smoke-npx-'));
    const env = userEnv({XDG_CONFIG_HOME: join(home, 'npx-config')});
    const r = run(
      'npm',
      [
        'exec',
        '--yes',
        `--package=${TARBALL}`,
        '--',
        'svc',
        'emulator',
        'exec',
        '--',
        'node',
        '-e',
        'console.log(process.env.SVC_API_KEY ? "key" : "none")',
      ],
      // The first run installs the package and its dependencies into npx's cache: minutes on a busy machine.
      {env, cwd: empty, timeoutMs: 300_000},
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'key');
    // Started by npx from its cache, svc hints `npx @svc/cli …`: a bare `npx svc` there would fetch another
    // package of that name.
    const npx = (args) =>
      run('npm', ['exec', '--yes', `--package=${TARBALL}`, '--', 'svc', ...args], {
        env: {...env, SVC_API_URL: NOWHERE},
        cwd: empty,
        timeoutMs: 300_000,
      });
    const org = npx(['org']);
    assert.equal(org.code, 4, org.stderr);
    assert.match(org.stderr, /`npx @svc\/cli login --api-url /);
    assert.doesNotMatch(org.stderr, /npx svc\b/);
  });
});

/** `svc tui` in a real terminal (tmux): its first screen lists the endpoint, and q quits. */
async function showsTuiFirstScreen(bin, env, endpointUrl) {
  const session = `svc-smoke-${process.pid}`;
  const envArgs = Object.entries(env)
    .filter(([, v]) => v !== undefined)
    .flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  const started = run(
    'tmux',
    ['new-session', '-d', '-s', session, '-x', '160', '-y', '30', ...envArgs, bin, 'tui'],
    {env: {...env, TMUX: ''}},
  );
  assert.equal(started.code, 0, started.stderr);
  try {
    const deadline = Date.now() + 30_000;
    let screen = '';
    while (!screen.includes(endpointUrl)) {
      assert.ok(Date.now() < deadline, `the TUI did not show the endpoint in 30 s:\n${screen}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
      screen = run('tmux', ['capture-pane', '-p', '-t', session]).stdout;
    }
    run('tmux', ['send-keys', '-t', session, 'q']);
    const gone = Date.now() + 10_000;
    while (run('tmux', ['has-session', '-t', session]).code === 0) {
      assert.ok(Date.now() < gone, 'the TUI did not quit on q');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    run('tmux', ['kill-session', '-t', session]);
  }
}

after(() => rmSync(home, {recursive: true, force: true}));
