// The database template @svc/cli ships, from the project it was installed into (scripts/package-smoke.js runs
// this file there with node --test): the tarball carries exactly what the build made, and a start from the
// installed package copies it, so it runs no initdb, makes no template in the user cache and leaves nothing in
// the temp dir, for a start that fails too.
import assert from 'node:assert/strict';
import {spawnSync} from 'node:child_process';
import {existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join, relative} from 'node:path';
import {after, describe, it} from 'node:test';

const APP = realpathSync(process.cwd());
const {SVC_SMOKE_TREE: TREE, SVC_SMOKE_CLI_TARBALL: TARBALL} = process.env;
assert.ok(TREE && TARBALL, 'run through scripts/package-smoke.js');
const TEMPLATE = join('dist', 'src', 'emulator', 'pg-template');
const INSTALLED = join(APP, 'node_modules', '@svc', 'cli');
const scratch = mkdtempSync(join(tmpdir(), 'svc-smoke-template-'));

function filesUnder(dir) {
  return readdirSync(dir, {recursive: true, withFileTypes: true})
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath ?? e.path, e.name)))
    .sort();
}

/** A user with nothing yet: an empty home and cache, and a temp dir of their own to watch. */
function freshUser(name) {
  const base = join(scratch, name);
  const user = {home: join(base, 'home'), cache: join(base, 'cache'), tmp: join(base, 'tmp')};
  for (const dir of Object.values(user)) mkdirSync(dir, {recursive: true});
  return user;
}

function runAs(user, args) {
  const r = spawnSync(process.execPath, args, {
    cwd: APP,
    encoding: 'utf8',
    timeout: 120_000,
    env: {
      PATH: process.env.PATH,
      HOME: user.home,
      XDG_CACHE_HOME: user.cache,
      XDG_CONFIG_HOME: join(user.home, '.config'),
      XDG_DATA_HOME: join(user.home, '.local', 'share'),
      TMPDIR: user.tmp,
      NO_COLOR: '1',
    },
  });
  return {code: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? ''};
}

/** Nothing a template start would make: no template in the cache, nothing left in the temp dir. */
function assertNoTemplateMade(user) {
  assert.deepEqual(readdirSync(user.tmp), [], 'the start left something in the temp dir');
  const cached = existsSync(user.cache) ? filesUnder(user.cache) : [];
  const templates = cached.filter((f) => /template|PG_VERSION|pg_filenode/.test(f));
  assert.deepEqual(templates, [], 'the start made a template in the cache (it ran initdb)');
}

describe('the shipped database template', () => {
  it('is packed whole: the tarball and the install hold every file the build made under it, nothing else', () => {
    const built = filesUnder(join(TREE, TEMPLATE));
    assert.ok(built.length > 0, 'the build made no template');
    const listed = spawnSync('tar', ['tzf', TARBALL], {encoding: 'utf8', maxBuffer: 64 * 1024 * 1024});
    assert.equal(listed.status, 0, listed.stderr);
    const prefix = `package/${TEMPLATE}/`;
    const packed = listed.stdout
      .split('\n')
      .filter((l) => l.startsWith(prefix) && !l.endsWith('/'))
      .map((l) => l.slice(prefix.length))
      .sort();
    assert.deepEqual(packed, built);
    assert.deepEqual(filesUnder(join(INSTALLED, TEMPLATE)), built);
    const maps = built.filter((f) => f.endsWith('pg_filenode.map'));
    assert.ok(maps.length >= 2, `pg_filenode.map files: ${maps.join(', ')}`);
  });

  it('starts from the installed package without initdb: in memory and on a data dir, no temp dir folder', () => {
    const user = freshUser('library');
    const dataDir = join(user.home, 'emulator-data');
    const script = `
      import {startEmulator} from '@svc/cli/emulator';
      const inMemory = await startEmulator({inMemory: true, port: 0});
      await inMemory.stop();
      const onDisk = await startEmulator({dataDir: ${JSON.stringify(dataDir)}, port: 0});
      await onDisk.stop();
      console.log('started twice');
    `;
    const r = runAs(user, ['--input-type=module', '-e', script]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'started twice');
    assert.ok(existsSync(join(dataDir)), 'no data dir');
    assertNoTemplateMade(user);
  });

  it('leaves nothing in the temp dir when a start fails', () => {
    const user = freshUser('failed');
    const script = `
      import {createServer} from 'node:http';
      import {startEmulator} from '@svc/cli/emulator';
      const busy = createServer();
      await new Promise((resolve) => busy.listen(0, '127.0.0.1', resolve));
      const failed = await startEmulator({inMemory: true, port: busy.address().port}).then(
        (emu) => emu.stop().then(() => 'started'),
        (err) => err.code ?? err.message,
      );
      busy.close();
      console.log(failed);
    `;
    const r = runAs(user, ['--input-type=module', '-e', script]);
    assert.equal(r.code, 0, r.stderr);
    assert.notEqual(r.stdout.trim(), 'started');
    assertNoTemplateMade(user);
  });

  it('runs `svc emulator exec` on an empty home without making a template', () => {
    const user = freshUser('cli');
    const bin = join(APP, 'node_modules', '.bin', 'svc');
    const r = runAs(user, [bin, 'emulator', 'exec', '--', process.execPath, '-e', 'process.exit(0)']);
    assert.equal(r.code, 0, r.stderr);
    assertNoTemplateMade(user);
  });
});

after(() => rmSync(scratch, {recursive: true, force: true}));
