// @svc/client as a script installs it: alone in a fresh project (scripts/package-smoke.js installs the tarball
// and runs this file there with node --test). It reads /v1 from an emulator the installed CLI runs in another
// project, after making a key through the emulator's control surface with its own EmulatorControl.
import assert from 'node:assert/strict';
import {spawn, spawnSync} from 'node:child_process';
import {existsSync, mkdtempSync, readdirSync, realpathSync, rmSync} from 'node:fs';
import {createRequire} from 'node:module';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {after, describe, it} from 'node:test';
import {fileURLToPath} from 'node:url';

const APP = realpathSync(process.cwd());
const CLI_APP = process.env.SVC_SMOKE_CLI_APP;
assert.ok(CLI_APP, 'run through scripts/package-smoke.js');
const INSTALLED = join(APP, 'node_modules', '@svc', 'client');
const HEAVY =
  /^(@electric-sql\/pglite|pglite|@oclif\/|oclif$|hono$|@hono\/|ink$|react$|@modelcontextprotocol\/)/;
const home = mkdtempSync(join(tmpdir(), 'svc-smoke-client-home-'));

/** Every package name in an `npm ls --all --json` tree. */
function namesIn(tree, into = new Set()) {
  for (const [name, node] of Object.entries(tree.dependencies ?? {})) {
    into.add(name);
    namesIn(node, into);
  }
  return into;
}

/** Every package folder under node_modules, scoped ones as @scope/name. */
function foldersIn(modules, into = new Set()) {
  if (!existsSync(modules)) return into;
  for (const entry of readdirSync(modules)) {
    if (entry.startsWith('.')) continue;
    const names = entry.startsWith('@')
      ? readdirSync(join(modules, entry)).map((n) => `${entry}/${n}`)
      : [entry];
    for (const name of names) {
      into.add(name);
      foldersIn(join(modules, name, 'node_modules'), into);
    }
  }
  return into;
}

/** `svc emulator start` from the CLI's own project, on a data dir; resolves once it is ready. */
function startCliEmulator(dataDir) {
  const bin = join(CLI_APP, 'node_modules', '@svc', 'cli', 'bin', 'run.js');
  const child = spawn(
    process.execPath,
    [bin, 'emulator', 'start', '--json', '--data-dir', dataDir, '--port', '0'],
    {
      cwd: CLI_APP,
      env: {
        ...process.env,
        HOME: home,
        XDG_CONFIG_HOME: join(home, 'config'),
        XDG_CACHE_HOME: join(home, 'cache'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => {
    err += d;
  });
  return new Promise((resolve, reject) => {
    child.on('exit', (code) => reject(new Error(`the emulator exited ${code} before it was ready: ${err}`)));
    child.stdout.on('data', (d) => {
      out += d;
      if (!out.includes('\n')) return;
      child.removeAllListeners('exit');
      resolve({
        ready: JSON.parse(out.slice(0, out.indexOf('\n'))),
        stop: () =>
          new Promise((done) => {
            if (child.exitCode !== null) return done(child.exitCode);
            child.once('exit', done);
            child.kill('SIGTERM');
          }),
      });
    });
  });
}

describe('@svc/client installed alone', () => {
  it('installs alone: no dependency at all, so no PGlite, oclif, Hono or Ink', () => {
    const ls = spawnSync('npm', ['ls', '--all', '--json'], {cwd: APP, encoding: 'utf8'});
    assert.equal(ls.status, 0, ls.stderr);
    const names = namesIn(JSON.parse(ls.stdout));
    const folders = foldersIn(join(APP, 'node_modules'));
    for (const set of [names, folders]) {
      assert.ok(set.has('@svc/client'), [...set].join(', '));
      const heavy = [...set].filter((n) => HEAVY.test(n));
      assert.deepEqual(heavy, [], `heavy packages installed: ${heavy.join(', ')}`);
      assert.ok(!set.has('@svc/cli') && !set.has('@svc/webhooks'), [...set].join(', '));
    }
    assert.deepEqual([...folders].sort(), ['@svc/client']);
  });

  it('loads with import and with require from this install', async () => {
    const require = createRequire(join(APP, 'package.json'));
    for (const resolved of [
      fileURLToPath(import.meta.resolve('@svc/client')),
      require.resolve('@svc/client'),
    ])
      assert.ok(resolved.startsWith(`${INSTALLED}/`), resolved);
    assert.equal(typeof require('@svc/client').createClient, 'function');
    assert.equal(typeof (await import('@svc/client')).EmulatorControl, 'function');
  });

  it('makes a key with EmulatorControl and reads /v1 (org, keys) from a running emulator', async () => {
    const {EmulatorControl, createClient, readRuntimeFile} = await import('@svc/client');
    const dataDir = join(home, 'emulator');
    const emulator = await startCliEmulator(dataDir);
    try {
      const runtime = await readRuntimeFile(dataDir);
      assert.equal(runtime.api_url, emulator.ready.api_url);
      const control = new EmulatorControl({url: runtime.api_url, adminToken: runtime.admin_token});
      const key = await control.createKey({name: 'client-smoke'});
      const client = createClient({apiUrl: runtime.api_url, apiKey: key.secret});
      const org = await client.getOrg();
      assert.match(org.id, /^org_/);
      const keys = await client.listApiKeys();
      assert.ok(
        keys.some((k) => k.name === 'client-smoke'),
        JSON.stringify(keys),
      );
      for (const k of keys)
        assert.ok(!JSON.stringify(k).includes(key.secret), 'a listed key holds its secret');
    } finally {
      assert.equal(await emulator.stop(), 0);
    }
  });
});

after(() => rmSync(home, {recursive: true, force: true}));
