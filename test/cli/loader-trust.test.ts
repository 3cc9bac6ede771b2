// The CLI bundle's code cache (src/cli/loader.ts) runs the code it holds whenever V8 accepts it, and V8 checks only
// that the source has the same length. So a cache is used only when svc can tell it wrote it itself, for this very
// bundle: its folder and the file are the user's own and closed to others, and its content matches the checksums
// svc wrote with it. Each test plants a cache compiled from another source of the same length, one that writes a
// marker file when it runs, and runs the built CLI (`npm run build` first) from a copy of the package that ships
// no cache of its own: the marker must never appear, and svc must still answer, with one warning line at most.
import {spawnSync} from 'node:child_process';
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
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
import {pathToFileURL} from 'node:url';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';

const REPO = realpathSync(new URL('../../', import.meta.url));
const LOADER = pathToFileURL(join(REPO, 'dist/src/cli/loader.js')).href;
const canChown = process.getuid?.() === 0;
const NOBODY = 65534;

let work: string;
let pkg: string;
let bundle: string;
let source: Buffer;
let buildId: string;
let loader: {
  cacheFileName: (buildId: string, bundlePath?: string) => string;
  CACHE_HEADER_SIZE: number;
  sealCache?: (data: Uint8Array, source: Uint8Array) => Buffer;
};
/** The evil cache: V8's compiled code of a same-length source that writes `marker` when it runs. */
let evil: Buffer;
let marker: string;

/** Compiles `text` under the bundle's file name in a plain Node, as the CLI's own Node would, and returns its cache. */
function compileCache(text: string): Buffer {
  const script = `
    const {Script} = require('node:vm');
    const text = require('node:fs').readFileSync(0, 'latin1');
    process.stdout.write(new Script(text, {filename: ${JSON.stringify(bundle)}}).createCachedData());`;
  const r = spawnSync(process.execPath, ['-e', script], {
    input: Buffer.from(text, 'latin1'),
    maxBuffer: 1 << 28,
  });
  if (r.status !== 0) throw new Error(r.stderr.toString());
  return r.stdout;
}

beforeAll(async () => {
  work = realpathSync(mkdtempSync(join(tmpdir(), 'svc-loader-trust-')));
  // The package as installed, but without the cache the build ships beside the bundle.
  pkg = join(work, 'pkg');
  mkdirSync(join(pkg, 'bin'), {recursive: true});
  mkdirSync(join(pkg, 'dist', 'cli'), {recursive: true});
  chmodSync(join(pkg, 'dist', 'cli'), 0o755);
  for (const file of ['bin/run.js', 'bin/package.json', 'package.json', 'oclif.manifest.json']) {
    copyFileSync(join(REPO, file), join(pkg, file));
  }
  for (const file of ['bundle.cjs', 'tui.mjs']) {
    copyFileSync(join(REPO, 'dist/cli', file), join(pkg, 'dist/cli', file));
  }
  symlinkSync(join(REPO, 'dist/src'), join(pkg, 'dist/src'));
  symlinkSync(join(REPO, 'node_modules'), join(pkg, 'node_modules'));
  bundle = join(pkg, 'dist/cli/bundle.cjs');
  source = readFileSync(bundle);
  buildId = source.toString('latin1', 0, 200).split('\n')[0].split(' ').at(-1) as string;
  loader = await import(LOADER);

  marker = join(work, 'MARKER');
  const payload = `process.getBuiltinModule('node:fs').writeFileSync(${JSON.stringify(marker)}, 'the planted cache ran');Function.prototype`;
  const text = `${payload}/*${' '.repeat(source.length - payload.length - 4)}*/`;
  expect(text.length).toBe(source.length);
  evil = compileCache(text);
}, 60_000);
afterAll(() => rmSync(work, {recursive: true, force: true}));

let runs = 0;
/** A cache folder of its own for one test, made as svc would (0700, the user's). */
function cacheFolder(): string {
  const dir = join(work, `cache-${++runs}`);
  mkdirSync(dir, {mode: 0o700});
  return dir;
}

function userCacheFile(dir: string): string {
  return join(dir, loader.cacheFileName(buildId, bundle));
}

function svc(cacheDir: string) {
  const r = spawnSync(process.execPath, [join(pkg, 'bin/run.js'), 'keys', 'list', '--help'], {
    cwd: work,
    env: {PATH: process.env.PATH, HOME: work, SVC_CACHE_DIR: cacheDir, NO_COLOR: '1'},
    encoding: 'utf8',
    timeout: 60_000,
  });
  return {code: r.status, stdout: r.stdout, stderr: r.stderr};
}

/** The planted code did not run, svc answered, and said at most one line on stderr, matching `warning`. */
function expectRefused(r: ReturnType<typeof svc>, warning: RegExp | undefined) {
  expect(existsSync(marker), 'the planted cache ran').toBe(false);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toMatch(/USAGE/);
  if (warning === undefined) {
    expect(r.stderr).toBe('');
  } else {
    const lines = r.stderr.split('\n').filter(Boolean);
    expect(lines, r.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(warning);
  }
}

/** A forger who knows svc's format: the right header for this bundle around the evil code. */
function forged(): Buffer {
  if (!loader.sealCache) throw new Error('dist/src/cli/loader.js has no sealCache: rebuild (npm run build)');
  return loader.sealCache(evil, source);
}

describe('the code cache in the user cache folder', {timeout: 120_000}, () => {
  it('proves the attack: the planted cache is code that runs when it is used', () => {
    const r = spawnSync(
      process.execPath,
      [
        '-e',
        `const {Script} = require('node:vm'); const fs = require('node:fs');
         const s = new Script(fs.readFileSync(${JSON.stringify(bundle)}, 'latin1'), {filename: ${JSON.stringify(bundle)}, cachedData: fs.readFileSync(0)});
         if (s.cachedDataRejected) throw new Error('rejected'); s.runInThisContext();`,
      ],
      {input: evil, env: {...process.env, NODE_OPTIONS: ''}},
    );
    expect(r.status, r.stderr.toString()).toBe(0);
    expect(readFileSync(marker, 'utf8')).toBe('the planted cache ran');
    rmSync(marker);
  });

  it('is not used when it holds other code of the same length, and is written again with one warning', () => {
    const dir = cacheFolder();
    const file = userCacheFile(dir);
    writeFileSync(file, evil, {mode: 0o600});
    expectRefused(svc(dir), /^svc: warning: .* was not used: .*\. Writing it again\.$/);
    // Written again, by svc, for this bundle: the next run uses it and says nothing.
    expect(readFileSync(file).equals(evil)).toBe(false);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expectRefused(svc(dir), undefined);
    expect(readdirSync(dir)).toEqual([loader.cacheFileName(buildId, bundle)]);
  });

  it('is not used when its checksums do not match its content (a header copied onto other code)', () => {
    const dir = cacheFolder();
    const file = userCacheFile(dir);
    expectRefused(svc(dir), undefined);
    const good = readFileSync(file);
    // The header of svc's own cache, the planted code after it.
    const header = good.subarray(0, loader.CACHE_HEADER_SIZE);
    writeFileSync(file, Buffer.concat([header, evil]), {mode: 0o600});
    expectRefused(svc(dir), /^svc: warning: .* was not used: its content does not match the checksums/);
  });

  it.runIf(canChown)('is not used when it belongs to another user, even with the right checksums', () => {
    for (const planted of [evil, forged()]) {
      const dir = cacheFolder();
      const file = userCacheFile(dir);
      writeFileSync(file, planted, {mode: 0o600});
      chownSync(file, NOBODY, NOBODY);
      expectRefused(
        svc(dir),
        /^svc: warning: .* was not used: it belongs to another user\. Writing it again\.$/,
      );
      expect(statSync(file).uid).toBe(process.getuid?.());
    }
  });

  it('is not used when others can write to it, even with the right checksums', () => {
    const dir = cacheFolder();
    const file = userCacheFile(dir);
    writeFileSync(file, forged(), {mode: 0o600});
    chmodSync(file, 0o666);
    expectRefused(
      svc(dir),
      /was not used: it can be written by other users \(mode 0666\)\. Writing it again\.$/,
    );
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('is not used when it is a link, and the link is replaced, not followed', () => {
    const dir = cacheFolder();
    const file = userCacheFile(dir);
    const elsewhere = join(work, `elsewhere-${runs}`);
    writeFileSync(elsewhere, forged(), {mode: 0o600});
    symlinkSync(elsewhere, file);
    expectRefused(svc(dir), /was not used: it is a symbolic link\. Writing it again\.$/);
    expect(readFileSync(elsewhere).equals(forged())).toBe(true);
    expect(statSync(file).isFile()).toBe(true);
  });

  it('is refused for code, with a sentence naming SVC_CACHE_DIR, when the folder is open to others', () => {
    for (const [mode, planted] of [
      [0o770, evil],
      [0o777, evil],
      [0o1777, forged()],
    ] as const) {
      const dir = cacheFolder();
      const file = userCacheFile(dir);
      writeFileSync(file, planted, {mode: 0o600});
      chmodSync(dir, mode);
      const r = svc(dir);
      expectRefused(
        r,
        /^svc: warning: the cache folder .* can be written by other users \(mode \d+\).*SVC_CACHE_DIR/,
      );
      // Nothing written there either.
      expect(readFileSync(file).equals(planted)).toBe(true);
      expect(readdirSync(dir)).toHaveLength(1);
    }
  });

  it.runIf(canChown)('is refused for code when the folder belongs to another user', () => {
    const dir = cacheFolder();
    writeFileSync(userCacheFile(dir), evil, {mode: 0o600});
    chownSync(dir, NOBODY, NOBODY);
    expectRefused(svc(dir), /^svc: warning: the cache folder .* belongs to another user.*SVC_CACHE_DIR/);
  });
});

describe('the code cache shipped beside the bundle', {timeout: 120_000}, () => {
  const shipped = () => join(pkg, 'dist/cli', loader.cacheFileName(buildId));
  afterAll(() => {
    rmSync(shipped(), {force: true});
    chmodSync(join(pkg, 'dist/cli'), 0o755);
  });

  it('is not used unless svc wrote it for this bundle', () => {
    writeFileSync(shipped(), evil, {mode: 0o644});
    // The install's own cache is never rewritten and not worth a warning: the user cache is used instead.
    expectRefused(svc(cacheFolder()), undefined);
  });

  it('is not used when the install folder can be written by others', () => {
    writeFileSync(shipped(), forged(), {mode: 0o644});
    chmodSync(join(pkg, 'dist/cli'), 0o775);
    expectRefused(svc(cacheFolder()), undefined);
  });
});
