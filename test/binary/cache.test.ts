// The single executable's folder of files (src/binary/cache.ts): written owner-only, checked in full against the
// build's list, and the record of a full check that each start compares with a fresh look at every entry.
import {createHash} from 'node:crypto';
import {
  chmodSync,
  chownSync,
  lstatSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import {tmpdir} from 'node:os';
import {dirname, join} from 'node:path';
import {afterAll, beforeEach, describe, expect, it} from 'vitest';
import {
  cacheFolder,
  cacheProblem,
  checkedBefore,
  type PayloadIndex,
  recordCheck,
  writeCache,
} from '../../src/binary/cache.js';

const files: Array<[string, string]> = [
  ['package.json', '{"name":"svc"}\n'],
  ['bin/run.js', 'module.exports = 1;\n'],
  ['node_modules/a/b/c.wasm', 'wasm bytes'],
];
const payload = Buffer.concat(files.map(([, text]) => Buffer.from(text)));
let offset = 0;
const index: PayloadIndex = {
  files: files.map(([path, text]) => {
    const size = Buffer.byteLength(text);
    const file = {path, offset, size, sha256: createHash('sha256').update(text).digest('hex')};
    offset += size;
    return file;
  }),
};

const base = mkdtempSync(join(tmpdir(), 'svc-binary-cache-'));
afterAll(() => rmSync(base, {recursive: true, force: true}));
let dir: string;
beforeEach(() => {
  dir = cacheFolder(join(base, String(Math.random()).slice(2)), '0123456789abcdef');
  writeCache(dir, index, payload);
});

/**
 * Records the check until the record is younger than every entry: a record written in the same tick of the
 * file system's clock as the last change vouches for nothing, so this waits for the clock to move on.
 */
function record() {
  for (let i = 0; i < 100_000 && !checkedBefore(dir, index); i++) recordCheck(dir, index);
}

describe('the executable folder of files', () => {
  it('is written whole, folders 0700 and files 0600, and passes the full check', () => {
    expect(dir).toMatch(/binary-0123456789abcdef$/);
    expect(cacheProblem(dir, index)).toBeUndefined();
    for (const folder of ['', 'bin', 'node_modules', 'node_modules/a', 'node_modules/a/b']) {
      expect(statSync(join(dir, folder)).mode & 0o777).toBe(0o700);
    }
    for (const [path, text] of files) {
      expect(statSync(join(dir, path)).mode & 0o777).toBe(0o600);
      expect(readFileSync(join(dir, path), 'utf8')).toBe(text);
    }
  });

  it('fails the full check for each way it can differ from the build', () => {
    const cases: Array<[() => void, RegExp]> = [
      [() => chmodSync(dir, 0o755), /^the folder is open to other users \(mode 0755\)$/],
      [() => chmodSync(join(dir, 'node_modules/a'), 0o750), /^node_modules\/a is open to other users/],
      [() => chmodSync(join(dir, 'bin/run.js'), 0o644), /^bin\/run\.js is open to other users/],
      [() => writeFileSync(join(dir, 'bin/run.js'), 'module.exports = 2;\n'), /^bin\/run\.js differs/],
      [() => writeFileSync(join(dir, 'package.json'), '{}'), /^package\.json has 2 bytes instead of 15$/],
      [() => rmSync(join(dir, 'node_modules/a/b/c.wasm')), /^node_modules\/a\/b\/c\.wasm is missing$/],
      [
        () => writeFileSync(join(dir, 'bin/extra.js'), ''),
        /^bin\/extra\.js is not one of the build's files$/,
      ],
    ];
    for (const [tamper, problem] of cases) {
      rmSync(dir, {recursive: true, force: true});
      writeCache(dir, index, payload);
      tamper();
      expect(cacheProblem(dir, index)).toMatch(problem);
    }
  });

  it('keeps a record of the full check that any later change to an entry invalidates', () => {
    expect(checkedBefore(dir, index)).toBe(false);
    record();
    expect(checkedBefore(dir, index)).toBe(true);
    expect(statSync(`${dir}.checked`).mode & 0o777).toBe(0o600);
    // The same bytes written again: the change time moves, so the record no longer vouches for the folder.
    writeFileSync(join(dir, 'bin/run.js'), readFileSync(join(dir, 'bin/run.js')));
    expect(checkedBefore(dir, index)).toBe(false);
    record();
    chmodSync(join(dir, 'bin'), 0o755);
    expect(checkedBefore(dir, index)).toBe(false);
    chmodSync(join(dir, 'bin'), 0o700);
    record();
    writeFileSync(join(dir, 'node_modules/stranger.js'), '');
    expect(checkedBefore(dir, index)).toBe(false);
  });

  it('keeps the folder another run wrote first', () => {
    const before = statSync(join(dir, 'package.json')).ino;
    writeCache(dir, index, payload);
    expect(statSync(join(dir, 'package.json')).ino).toBe(before);
    expect(cacheProblem(dir, index)).toBeUndefined();
  });

  it("trusts nothing in a cache folder that others can write to or that is not the user's", () => {
    record();
    const cacheDir = dirname(dir);
    for (const mode of [0o770, 0o777, 0o1777]) {
      chmodSync(cacheDir, mode);
      const shown = `0${mode.toString(8)}`.slice(-4);
      expect(cacheProblem(dir, index)).toBe(
        `the cache folder ${cacheDir} can be written by other users (mode ${shown})`,
      );
      // A record made before does not vouch for a folder someone else could have swapped in since.
      expect(checkedBefore(dir, index)).toBe(false);
      expect(() => writeCache(`${dir}-other`, index, payload)).toThrow(
        /^the cache folder .* can be written by other users .*; svc keeps its program's files only in a folder that is yours alone$/,
      );
    }
    chmodSync(cacheDir, 0o700);
    expect(checkedBefore(dir, index)).toBe(true);
    if (process.getuid?.() === 0) {
      chownSync(cacheDir, 65534, 65534);
      expect(cacheProblem(dir, index)).toBe(`the cache folder ${cacheDir} belongs to another user`);
      expect(checkedBefore(dir, index)).toBe(false);
      chownSync(cacheDir, 0, 0);
    }
  });

  it('writes the record of a check under a fresh name, never through a link, and reads none that is a link', () => {
    const victim = join(base, `victim-${String(Math.random()).slice(2)}`);
    writeFileSync(victim, "not svc's", {mode: 0o644});
    symlinkSync(victim, `${dir}.checked`);
    record();
    expect(readFileSync(victim, 'utf8')).toBe("not svc's");
    expect(lstatSync(`${dir}.checked`).isFile()).toBe(true);
    expect(checkedBefore(dir, index)).toBe(true);
    // A record that is a link to a copy of a good one is not read.
    renameSync(`${dir}.checked`, victim);
    symlinkSync(victim, `${dir}.checked`);
    expect(checkedBefore(dir, index)).toBe(false);
    rmSync(`${dir}.checked`);
    writeFileSync(`${dir}.checked`, readFileSync(victim), {mode: 0o666});
    chmodSync(`${dir}.checked`, 0o666);
    expect(checkedBefore(dir, index)).toBe(false);
  });
});
