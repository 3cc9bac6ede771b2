// bin/run.js's ways of loading the CLI, each run for real from a copy of the built package: the bundle with its
// shipped code cache, a cache V8 refuses (another build's, or damaged) that falls back to one kept in the user's
// cache dir, a cache dir that cannot be written, and a build without the bundle at all. Every way answers the same.
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {fileURLToPath, pathToFileURL} from 'node:url';
import {afterAll, beforeEach, describe, expect, it} from 'vitest';
import {runProcess} from '../helpers/run-cli.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const copies: string[] = [];

/** The built package as installed: bin, dist, the manifest and package.json, with the project's node_modules. */
function packageCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-loader-'));
  copies.push(dir);
  for (const entry of ['bin', 'dist', 'package.json', 'oclif.manifest.json'])
    cpSync(join(ROOT, entry), join(dir, entry), {recursive: true});
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return dir;
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(file: string, args: string[], env: NodeJS.ProcessEnv): Promise<Run> {
  return runProcess(process.execPath, [file, ...args], {
    env: {PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', ...env},
    timeoutMs: 30_000,
  });
}

/** `svc version --json` from a package copy: through the loader, not bin/run.js's --version shortcut. */
async function version(pkg: string, env: NodeJS.ProcessEnv): Promise<unknown> {
  const r = await run(join(pkg, 'bin', 'run.js'), ['version', '--json'], env);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout);
}

/** How the loader loaded the bundle in a fresh process: whether V8 took compiled code from a cache. */
async function loadedFromCache(pkg: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  const loader = pathToFileURL(join(pkg, 'dist', 'src', 'cli', 'loader.js')).href;
  const script = join(pkg, 'probe.mjs');
  writeFileSync(
    script,
    `const {loadBundle} = await import(${JSON.stringify(loader)});\n` +
      `const loaded = await loadBundle({root: new URL(${JSON.stringify(pathToFileURL(`${pkg}/`).href)})});\n` +
      'process.stdout.write(JSON.stringify({fromCache: loaded.fromCache}));\n',
  );
  const r = await run(script, [], env);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as {fromCache: boolean}).fromCache;
}

const shippedCache = (pkg: string) => {
  const name = readdirSync(join(pkg, 'dist', 'cli')).find((f) => f.endsWith('.v8cache'));
  if (!name) throw new Error('the build shipped no code cache');
  return {name, path: join(pkg, 'dist', 'cli', name)};
};

let cacheDir: string;
beforeEach(() => {
  cacheDir = mkdtempSync(join(tmpdir(), 'svc-loader-cache-'));
  copies.push(cacheDir);
});
afterAll(() => {
  for (const dir of copies) rmSync(dir, {recursive: true, force: true});
});

describe('bin/run.js loading the CLI', {timeout: 60_000}, () => {
  it('runs the bundle from the code cache the build shipped, writing nothing to the user cache dir', async () => {
    const pkg = packageCopy();
    const out = await version(pkg, {SVC_CACHE_DIR: cacheDir});
    expect(out).toMatchObject({
      version: JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version,
    });
    expect(await loadedFromCache(pkg, {SVC_CACHE_DIR: cacheDir})).toBe(true);
    expect(readdirSync(cacheDir)).toEqual([]);
  });

  for (const [kind, spoil] of [
    [
      'another build’s',
      (bytes: Buffer) => Buffer.concat([bytes.subarray(0, 16), Buffer.alloc(bytes.length - 16, 7)]),
    ],
    ['a damaged', (bytes: Buffer) => bytes.subarray(0, Math.floor(bytes.length / 3))],
  ] as const) {
    it(`with ${kind} code cache: compiles the source, keeps a cache of its own, and uses it next time`, async () => {
      const pkg = packageCopy();
      const shipped = shippedCache(pkg);
      writeFileSync(shipped.path, spoil(readFileSync(shipped.path)));
      const out = await version(pkg, {SVC_CACHE_DIR: cacheDir});
      expect(out).toEqual(
        await version(packageCopy(), {SVC_CACHE_DIR: mkdtempSync(join(tmpdir(), 'svc-loader-x-'))}),
      );
      // Its own cache in the user's cache dir, named like the shipped one plus a hash of the bundle's path (a
      // cache keeps the path it was made under, so two installs of one build never share one).
      const [own, ...more] = readdirSync(cacheDir);
      expect(more).toEqual([]);
      expect(own?.replace(/-[0-9a-f]{8}-v/, '-v')).toBe(shipped.name);
      expect(await loadedFromCache(pkg, {SVC_CACHE_DIR: cacheDir})).toBe(true);
    });
  }

  it('with a cache dir that cannot be written: runs all the same and says nothing about it', async () => {
    const pkg = packageCopy();
    rmSync(shippedCache(pkg).path);
    // A path under a regular file cannot be made a folder, whoever runs the test (root included).
    const blocked = join(cacheDir, 'a-file');
    writeFileSync(blocked, '');
    const out = await version(pkg, {SVC_CACHE_DIR: join(blocked, 'svc')});
    expect(out).toMatchObject({platform: process.platform});
    expect(existsSync(join(blocked, 'svc'))).toBe(false);
    expect(await loadedFromCache(pkg, {SVC_CACHE_DIR: join(blocked, 'svc')})).toBe(false);
  });

  it('without the bundle: runs the compiled modules, and every command is there', async () => {
    const pkg = packageCopy();
    rmSync(join(pkg, 'dist', 'cli'), {recursive: true});
    const out = await version(pkg, {SVC_CACHE_DIR: cacheDir});
    expect(out).toMatchObject({platform: process.platform});
    const help = await run(join(pkg, 'bin', 'run.js'), ['emulator', 'keys', '--help'], {
      SVC_CACHE_DIR: cacheDir,
    });
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toContain('emulator keys revoke');
    expect(readdirSync(cacheDir)).toEqual([]);
  });
});
