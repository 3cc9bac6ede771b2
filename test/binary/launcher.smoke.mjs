// The single executable's launcher (src/binary/launcher.sh), the lines that run before svc on any machine: run
// through scripts/binary-smoke.js like executable.smoke.mjs. On a machine it cannot serve it says so in one line
// naming what it needs, and writes nothing; on this one it writes its program owner-only once, runs it from there,
// later only looks, and writes it again (with a warning) when the copy changed. The machines it cannot serve are
// this one as the launcher sees it: uname and getconf, which it asks, answer as those machines' do; the loader's
// refusal is the real loader's, given a broken library.
import assert from 'node:assert/strict';
import {spawn, spawnSync} from 'node:child_process';
import {
  appendFileSync,
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {after, describe, it} from 'node:test';
import {LAUNCHER_TOOLS, linkTools} from './machine.mjs';

const BIN = process.env.SVC_BINARY;
assert.ok(BIN && existsSync(BIN), 'run through scripts/binary-smoke.js (SVC_BINARY names the executable)');
const work = mkdtempSync(join(tmpdir(), 'svc-launcher-'));

/** A folder of tools: the system's, named ones left out, and fakes that print `answer` (a shell snippet). */
function toolsFolder(name, {fakes = {}, leaveOut = []} = {}) {
  const dir = join(work, 'tools', name);
  if (existsSync(dir)) return dir;
  mkdirSync(dir, {recursive: true});
  linkTools(
    dir,
    LAUNCHER_TOOLS.filter((tool) => !(tool in fakes) && !leaveOut.includes(tool)),
  );
  for (const [tool, script] of Object.entries(fakes)) {
    writeFileSync(join(dir, tool), `#!/bin/sh\n${script}\n`, {mode: 0o755});
  }
  return dir;
}

let users = 0;
/** A user of their own: an empty home and cache, and the system tools on the PATH. */
function newUser(tools = toolsFolder('system')) {
  const home = join(work, `home-${++users}`);
  mkdirSync(home);
  return {home, cache: join(home, '.cache', 'svc'), env: {PATH: tools, HOME: home, NO_COLOR: '1'}};
}

function svc(user, args, extraEnv = {}) {
  const r = spawnSync(BIN, args, {
    cwd: work,
    env: {...user.env, ...extraEnv},
    encoding: 'utf8',
    timeout: 120_000,
  });
  return {code: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? ''};
}

/** The folder the launcher writes its program to, the program, and the record of its check. */
function copyOf(user) {
  const names = existsSync(user.cache) ? readdirSync(user.cache) : [];
  const folder = names.find((n) => /^binary-[0-9a-f]{16}-exe$/.test(n));
  assert.ok(folder, `no program folder in ${user.cache}: ${names.join(', ')}`);
  const dir = join(user.cache, folder);
  return {dir, program: join(dir, 'svc'), record: `${dir}.checked`};
}

/** One line on stderr, naming what the file needs and what to use instead, and nothing written. */
function assertRefused(user, r, found) {
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stdout, '');
  const lines = r.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, r.stderr);
  assert.match(lines[0], found);
  assert.match(lines[0], /needs Linux on x86-64 with glibc \d+\.\d+ or newer, .*libatomic\.so\.1/);
  assert.match(lines[0], /npm install -g @svc\/cli \(Node \d+\.\d+(\.\d+)? or newer\)$/);
  const left = existsSync(user.cache) ? readdirSync(user.cache) : [];
  assert.deepEqual(left, [], `it wrote ${left.join(', ')}`);
}

describe('the launcher of the single executable', () => {
  it('writes its program once, owner-only, and later only looks: uname, getconf, dd, cat and cksum are not asked again', () => {
    const user = newUser();
    const first = svc(user, ['--version']);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stderr, '');
    assert.match(first.stdout, /^svc\/\d+\.\d+\.\d+ linux-x64 node-v26\./);
    const {dir, program, record} = copyOf(user);
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    assert.equal(statSync(program).mode & 0o777, 0o700);
    assert.equal(statSync(record).mode & 0o777, 0o600);
    assert.deepEqual(readdirSync(dir), ['svc']);
    // The program is the file's tail, byte for byte.
    const whole = readFileSync(BIN);
    const copy = readFileSync(program);
    assert.ok(whole.subarray(whole.length - copy.length).equals(copy));
    assert.match(whole.subarray(0, 10).toString(), /^#!\/bin\/sh\n/);

    // Later starts need only the shell and stat: tools that would fail loudly stand in for the rest.
    const failing = 'echo "$0 was run" >&2; exit 3';
    const lean = toolsFolder('lean', {
      fakes: {uname: failing, getconf: failing, dd: failing, cat: failing, cksum: failing},
    });
    const again = svc(user, ['--version'], {PATH: lean});
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.stderr, '');
    assert.equal(again.stdout, first.stdout);
  });

  it('names this file, not its copy, in the commands it prints and in mcp config', () => {
    const user = newUser();
    const status = svc(user, ['emulator', 'status']);
    assert.match(
      status.stdout + status.stderr,
      new RegExp(`\`${BIN.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} emulator start\``),
    );
    const config = svc(user, ['mcp', 'config', '--client', 'cursor', '--json']);
    assert.equal(config.code, 0, config.stderr);
    assert.ok(config.stdout.includes(JSON.stringify(BIN)), config.stdout);
    assert.ok(!config.stdout.includes(copyOf(user).program), config.stdout);
  });

  it('says in one line what it needs on another architecture or system, and writes nothing', () => {
    for (const machine of ['Linux aarch64', 'Darwin arm64', 'FreeBSD amd64']) {
      const user = newUser(toolsFolder(machine.replace(' ', '-'), {fakes: {uname: `echo "${machine}"`}}));
      assertRefused(user, svc(user, ['emulator', 'start']), new RegExp(`^svc: this machine is ${machine};`));
    }
  });

  it('says in one line that it needs glibc, and which, on musl and on an older glibc', () => {
    const musl = newUser(
      toolsFolder('musl', {
        fakes: {getconf: 'echo "getconf: GNU_LIBC_VERSION: unknown variable" >&2; exit 1'},
      }),
    );
    assertRefused(musl, svc(musl, ['--version']), /^svc: this machine's C library is not glibc \(Alpine/);
    const old = newUser(toolsFolder('glibc-2.17', {fakes: {getconf: 'echo "glibc 2.17"'}}));
    assertRefused(old, svc(old, ['--version']), /^svc: this machine has glibc 2\.17;/);
  });

  it('says in one line what the loader refused, when a library it needs is broken, and keeps no copy', () => {
    const user = newUser();
    const broken = join(work, 'broken-libs');
    mkdirSync(broken, {recursive: true});
    writeFileSync(join(broken, 'libatomic.so.1'), 'not a library\n');
    const r = svc(user, ['--version'], {LD_LIBRARY_PATH: broken});
    assertRefused(
      user,
      r,
      /^svc: it cannot start here: .*libatomic\.so\.1: (file too short|invalid ELF header)/,
    );
  });

  it('writes its program again, with a one-line warning, when the copy changed, is open to others or is a link', () => {
    const user = newUser();
    assert.equal(svc(user, ['--version']).code, 0);
    const {dir, program} = copyOf(user);
    const tamperings = [
      ['it changed since it was checked', () => appendFileSync(program, 'x')],
      ['its folder is open to other users (mode 755)', () => chmodSync(dir, 0o755)],
      ['it is not an owner-only file', () => chmodSync(program, 0o755)],
      [
        'it is not an owner-only file',
        () => {
          rmSync(program);
          symlinkSync(BIN, program);
        },
      ],
    ];
    for (const [reason, tamper] of tamperings) {
      tamper();
      const r = svc(user, ['--version']);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stderr, `svc: warning: ${program} was not used: ${reason}. Writing it again.\n`);
      assert.match(r.stdout, /^svc\//);
      const next = svc(user, ['--version']);
      assert.equal(next.stderr, '', `after "${reason}"`);
      assert.equal(statSync(program, {throwIfNoEntry: true}).mode & 0o777, 0o700);
      assert.equal(statSync(dir).mode & 0o777, 0o700);
    }
  });

  it('starts four at once on an empty cache: each runs, and one whole copy is left', async () => {
    const user = newUser();
    const runs = await Promise.all(
      [1, 2, 3, 4].map(
        () =>
          new Promise((resolve) => {
            const child = spawn(BIN, ['--version'], {cwd: work, env: user.env});
            let out = '';
            child.stdout.on('data', (d) => {
              out += d;
            });
            child.on('close', (code) => resolve({code, out}));
          }),
      ),
    );
    for (const r of runs) {
      assert.equal(r.code, 0);
      assert.match(r.out, /^svc\//);
    }
    const {dir} = copyOf(user);
    assert.deepEqual(readdirSync(dir), ['svc']);
    assert.equal(svc(user, ['--version']).code, 0);
  });

  it('says in one line that a copy of this file is damaged or incomplete, and runs nothing from it', () => {
    const whole = readFileSync(BIN);
    const damaged = join(work, 'svc-damaged');
    const flipped = Buffer.from(whole);
    flipped[flipped.length - 1000] ^= 1;
    writeFileSync(damaged, flipped, {mode: 0o755});
    const cut = join(work, 'svc-cut');
    writeFileSync(cut, whole.subarray(0, whole.length - 4096), {mode: 0o755});
    const cases = [
      [
        damaged,
        /^svc: this file is damaged \(its program's checksum is not the build's\): download or copy it again$/,
      ],
      [cut, /^svc: this file is incomplete \(\d+ of \d+ bytes\): download or copy it again$/],
    ];
    for (const [file, message] of cases) {
      const user = newUser();
      const r = spawnSync(file, ['--version'], {cwd: work, env: user.env, encoding: 'utf8'});
      assert.equal(r.status, 1, r.stderr);
      assert.equal(r.stdout, '');
      assert.match(r.stderr.trimEnd(), message);
      assert.equal(r.stderr.trimEnd().split('\n').length, 1, r.stderr);
      const left = existsSync(user.cache) ? readdirSync(user.cache) : [];
      assert.ok(
        left.every((name) => !existsSync(join(user.cache, name, 'svc'))),
        `a copy was left: ${left}`,
      );
    }
  });

  it('names SVC_CACHE_DIR when it cannot write its program', () => {
    const user = newUser();
    // A folder below a file: no one can make it, root included.
    const file = join(work, 'a-file');
    writeFileSync(file, '');
    const r = svc(user, ['--version'], {SVC_CACHE_DIR: join(file, 'svc')});
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /^svc: could not write its program to .*; set SVC_CACHE_DIR to a folder you can write/,
    );
    assert.equal(r.stderr.trimEnd().split('\n').length, 1, r.stderr);
  });
});

after(() => rmSync(work, {recursive: true, force: true}));
