// The single executable's launcher (src/binary/launcher.sh) trusts its cache folder with the program it runs, so
// it refuses one that is not the user's alone, and writes the record of its check under a fresh name, never
// through a link. Run without building the executable: the launcher is filled in as scripts/build-binary.js does,
// in front of a small shell program that stands in for svc (the launcher smoke, test/binary/launcher.smoke.mjs,
// runs the real one).
import {spawnSync} from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';

const REPO = realpathSync(new URL('../../', import.meta.url));
const BUILD = '0123456789abcdef';
const BLOCK = 4096;
const linuxX64 = process.platform === 'linux' && process.arch === 'x64';
const root = process.getuid?.() === 0;

let work: string;
let launcher: string;

/** The launcher filled in for a build whose program is `program`, padded as the build pads it. */
function fill(program: Buffer): Buffer {
  const sum = spawnSync('cksum', {input: program, encoding: 'utf8'}).stdout.trim().split(' ');
  const text = (offset: number) =>
    readFileSync(join(REPO, 'src/binary/launcher.sh'), 'utf8')
      .replace('@VERSION@', '0.0.0-test')
      .replace('@BUILD@', BUILD)
      .replace('@OFFSET@', String(offset))
      .replace('@SIZE@', String(program.length))
      .replace('@CKSUM@', sum[0])
      .replace('@GLIBC@', '2.17')
      .replace('@NEEDS@', 'Linux on x86-64 with glibc 2.17 or newer')
      .replace('@NODE@', '20.18 or newer');
  const offset = Math.ceil((Buffer.byteLength(text(BLOCK * 1000)) + 2) / BLOCK) * BLOCK;
  const filled = text(offset);
  const pad = offset - Buffer.byteLength(filled);
  return Buffer.concat([Buffer.from(`${filled}#${'-'.repeat(pad - 2)}\n`), program]);
}

beforeAll(() => {
  work = realpathSync(mkdtempSync(join(tmpdir(), 'svc-launcher-trust-')));
  launcher = join(work, 'svc');
  writeFileSync(launcher, fill(Buffer.from('#!/bin/sh\necho "program ran: $*"\n')), {mode: 0o755});
});
afterAll(() => rmSync(work, {recursive: true, force: true}));

let n = 0;
/** A cache folder of the user's own (0700), or the path where one will be made. */
function cacheFolder(make = true): string {
  const dir = join(work, `cache-${++n}`);
  if (make) mkdirSync(dir, {mode: 0o700});
  return dir;
}

/** Runs the launcher; `before` is shell run first in the same process (exec keeps its pid for the launcher). */
function svc(cache: string, before = '') {
  const r = spawnSync('/bin/sh', ['-c', `${before}\nexec "$LAUNCHER" --version`], {
    cwd: work,
    env: {PATH: process.env.PATH, HOME: work, SVC_CACHE_DIR: cache, LAUNCHER: launcher},
    encoding: 'utf8',
  });
  return {code: r.status, stdout: r.stdout, stderr: r.stderr};
}

const ran = /^program ran: --version\n$/;

describe.runIf(linuxX64)('the launcher and its cache folder', () => {
  it("writes its program and the record owner-only into a folder of the user's, and later only looks", () => {
    const cache = cacheFolder(false);
    const first = svc(cache);
    expect(first.stderr).toBe('');
    expect(first.stdout).toMatch(ran);
    expect(statSync(cache).mode & 0o777).toBe(0o700);
    const record = join(cache, `binary-${BUILD}-exe.checked`);
    expect(statSync(record).mode & 0o777).toBe(0o600);
    expect(readFileSync(record, 'utf8').split('\n')).toHaveLength(3);
    expect(readdirSync(cache).sort()).toEqual([`binary-${BUILD}-exe`, `binary-${BUILD}-exe.checked`]);
    const again = svc(cache);
    expect(again.stderr).toBe('');
    expect(again.stdout).toMatch(ran);
  });

  it('refuses, in one line naming SVC_CACHE_DIR, a cache folder others can write to, and runs nothing', () => {
    for (const mode of [0o770, 0o777, 0o1777]) {
      for (const written of [false, true]) {
        const cache = cacheFolder();
        // A copy checked and recorded while the folder was the user's alone: someone could have swapped it since.
        if (written) expect(svc(cache).stdout).toMatch(ran);
        chmodSync(cache, mode);
        const r = svc(cache);
        expect(r.code, r.stderr).toBe(1);
        expect(r.stdout).toBe('');
        expect(r.stderr).toBe(
          `svc: will not keep its program in ${cache}: that folder can be written by other users (mode ${mode.toString(8)}). Set SVC_CACHE_DIR to a folder only you can write to\n`,
        );
        if (!written) expect(readdirSync(cache)).toEqual([]);
      }
    }
  });

  it.runIf(root)('refuses a cache folder that belongs to another user', () => {
    const cache = cacheFolder();
    chownSync(cache, 65534, 65534);
    const r = svc(cache);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^svc: will not keep its program in .*: that folder belongs to another user\. Set SVC_CACHE_DIR/,
    );
    expect(readdirSync(cache)).toEqual([]);
  });

  it('never writes the record through a link left at its temporary name', () => {
    const cache = cacheFolder();
    const victim = join(work, `victim-${n}`);
    writeFileSync(victim, "not the launcher's\n", {mode: 0o644});
    const record = join(cache, `binary-${BUILD}-exe.checked`);
    const r = svc(cache, `ln -s "${victim}" "${record}.tmp-$$"`);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(ran);
    expect(readFileSync(victim, 'utf8')).toBe("not the launcher's\n");
    expect(lstatSync(record).isFile()).toBe(true);
    expect(statSync(record).mode & 0o777).toBe(0o600);
    expect(readdirSync(cache).filter((name) => name.includes('.tmp-'))).toEqual([]);
    // The record holds: the next start runs the copy without writing it again.
    const again = svc(cache);
    expect(again.stderr).toBe('');
  });

  it('uses a cache folder named through a link by its own path, and refuses a link to a shared one', () => {
    const real = cacheFolder();
    const link = join(work, `link-${n}`);
    symlinkSync(real, link);
    expect(svc(link).stdout).toMatch(ran);
    expect(existsSync(join(real, `binary-${BUILD}-exe`, 'svc'))).toBe(true);
    expect(svc(link).stderr).toBe('');
    chmodSync(real, 0o777);
    const r = svc(link);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `will not keep its program in ${real}: that folder can be written by other users`,
    );
  });
});
