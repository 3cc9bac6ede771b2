// Loads the CLI bundle (dist/cli/bundle.cjs, built by scripts/bundle-cli.js) as one V8 script with a code
// cache, so a command starts without resolving, reading and compiling a few hundred modules. Every cache
// problem falls back to compiling the source: the cache makes start-up faster, never makes it fail.
import {mkdirSync, readFileSync, renameSync, writeFileSync} from 'node:fs';
import {createRequire} from 'node:module';
import {dirname, join} from 'node:path';
import {fileURLToPath, pathToFileURL} from 'node:url';
import {Script} from 'node:vm';

/** What the bundle exports. */
export type CliBundle = typeof import('./main.js');

export interface LoadedBundle {
  bundle: CliBundle;
  script: Script;
  /** True when V8 took compiled code from a cache instead of compiling the source. */
  fromCache: boolean;
}

export interface LoadBundleOptions {
  /** Package root: holds dist/cli/bundle.cjs. */
  root: URL;
  /** Skip every cache, read and write (the build uses this to produce the shipped cache). */
  noCache?: boolean;
}

/** The bundle's first line names its build, so a cache made for another build is never tried. */
export const BUILD_ID_PREFIX = '// svc cli bundle ';
/** The bundle is one function expression; these are the names its body expects (CommonJS's, plus one). */
export const BUNDLE_PARAMETERS = ['exports', 'require', 'module', '__filename', '__dirname', '__svcImport'];

/**
 * V8 accepts a code cache only from its own version and architecture; the name says which it came from. A
 * cache also keeps the file name the bundle was compiled under (stack traces show it), so one kept in the
 * user's cache dir is named after the bundle's path too: two installs of one build never share a cache.
 */
export function cacheFileName(buildId: string, bundlePath?: string): string {
  const where = bundlePath ? `-${pathHash(bundlePath)}` : '';
  return `bundle-${buildId}${where}-${process.version}-${process.arch}.v8cache`;
}

/** FNV-1a over the path's UTF-16 units: a name, not a secret, and no crypto module to load at start-up. */
function pathHash(path: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < path.length; i++) hash = Math.imul(hash ^ path.charCodeAt(i), 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, '0');
}

export function bundlePaths(root: URL): {bundle: string; shippedCache: (buildId: string) => string} {
  const dir = fileURLToPath(new URL('dist/cli/', root));
  return {bundle: join(dir, 'bundle.cjs'), shippedCache: (id) => join(dir, cacheFileName(id))};
}

function readOrUndefined(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

/**
 * Compiles and runs the bundle; undefined when there is none (a build without it, or a partial checkout),
 * and the caller loads the unbundled modules instead.
 */
export async function loadBundle(options: LoadBundleOptions): Promise<LoadedBundle | undefined> {
  const paths = bundlePaths(options.root);
  let source: string;
  try {
    // The build writes it in ASCII (scripts/bundle-cli.js): latin1 reads it without decoding.
    source = readFileSync(paths.bundle, 'latin1');
  } catch {
    return undefined;
  }
  const buildId = source.startsWith(BUILD_ID_PREFIX)
    ? source.slice(BUILD_ID_PREFIX.length, source.indexOf('\n'))
    : '';

  const compile = (cachedData?: Buffer) => new Script(source, {filename: paths.bundle, cachedData});
  let script: Script | undefined;
  if (!options.noCache && buildId) {
    const shipped = readOrUndefined(paths.shippedCache(buildId));
    if (shipped) script = compile(shipped);
    if (!script || script.cachedDataRejected) {
      // None shipped (the package leaves the build's out: it names the folder it was built in), or another Node
      // version or other V8 flags than the build's: keep a cache of our own beside the user's files.
      const own = join(await userCacheDir(), cacheFileName(buildId, paths.bundle));
      const cached = readOrUndefined(own);
      if (cached) script = compile(cached);
      if (!script || script.cachedDataRejected) {
        script ??= compile();
        // At exit the cache holds every function this run compiled, not only the top level.
        const compiled = script;
        process.once('exit', () => writeCache(compiled, own));
      }
    }
  }
  script ??= compile();
  const fromCache = Boolean(script.cachedDataRejected === false);
  return {bundle: instantiate(script, paths.bundle, options.root), script, fromCache};
}

/**
 * Runs the compiled bundle once more: a copy of the CLI with module state of its own (oclif's caches, every
 * module-level value), as a new process would have. In-process command runs (run-command.ts) take one each.
 */
export function instantiate(script: Script, file: string, root: URL): CliBundle {
  const bundleUrl = pathToFileURL(file);
  // oclif imports the command list named in package.json; the bundle holds it already, classes included,
  // so handing over the bundle's own keeps one copy of every class (instanceof checks depend on it).
  const commandsUrl = new URL('dist/src/cli/commands.js', root).href;
  const module = {exports: {} as CliBundle};
  const importForBundle = (specifier: string): Promise<unknown> => {
    const url = specifier.startsWith('.') ? new URL(specifier, bundleUrl).href : specifier;
    if (url === commandsUrl) return Promise.resolve({COMMANDS: module.exports.COMMANDS});
    return import(url);
  };
  const factory = script.runInThisContext() as (...args: unknown[]) => void;
  // oclif checks Node against its own package.json's engines when it loads. From the bundle that file is
  // never found, so the check cannot warn; switching it off saves loading semver for nothing.
  const engineCheck = process.env.OCLIF_DISABLE_ENGINE_WARNING;
  process.env.OCLIF_DISABLE_ENGINE_WARNING = '1';
  try {
    factory.call(
      module.exports,
      module.exports,
      createRequire(file),
      module,
      file,
      dirname(file),
      importForBundle,
    );
  } finally {
    if (engineCheck === undefined) delete process.env.OCLIF_DISABLE_ENGINE_WARNING;
    else process.env.OCLIF_DISABLE_ENGINE_WARNING = engineCheck;
  }
  return module.exports;
}

async function userCacheDir(): Promise<string> {
  const {cacheDir} = await import('../lib/paths.js');
  return cacheDir();
}

/** Written whole and renamed into place, so a concurrent run never reads half a file. */
export function writeCache(script: Script, file: string): void {
  try {
    mkdirSync(dirname(file), {recursive: true});
    const partial = `${file}.${process.pid}.tmp`;
    writeFileSync(partial, script.createCachedData());
    renameSync(partial, file);
  } catch {
    // A read-only or full disk costs the next run its cache, nothing else.
  }
}
