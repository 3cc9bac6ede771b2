// Loads the CLI bundle (dist/cli/bundle.cjs, built by scripts/bundle-cli.js) as one V8 script with a code
// cache, so a command starts without resolving, reading and compiling a few hundred modules. Every cache
// problem falls back to compiling the source: the cache makes start-up faster, never makes it fail.
//
// A code cache is code: V8 runs what one holds whenever it accepts it, and it checks only that the source has the
// same length (and its own version and flags). So a cache is used only when svc can tell that it wrote it itself,
// for this very bundle (trustedCache):
//   - its folder and the file are the user's own and no one else can write to them (lib/safe-write.ts's rule), the
//     file opened without following a link and checked as opened (fstat);
//   - it starts with a header svc wrote with it: a CRC-32 of the bundle source it was compiled from and one of the
//     cache bytes after the header, both checked before V8 sees a byte (under 1 ms for the 2 MB at start-up).
//     These are checksums, not locks: whoever can write the file could compute any unkeyed digest as well, so what
//     keeps a planted cache out is the rule above. They tell svc's own cache for this bundle from a stale, torn or
//     foreign one, and node:zlib's CRC-32 does that without loading node:crypto, which cost more than the check.
// A cache in the user's folder that fails is ignored and written again, with one warning line; a user cache folder
// that is shared or open to others is refused for code (one line naming SVC_CACHE_DIR) and svc runs without it.
// The cache the build ships beside the bundle (dist/cli) is part of the install: it is trusted on the same terms,
// its folder and file being the user's or root's (a system-wide install) and not writable by others. One that
// fails is skipped without a word: svc never rewrites its install, anyone able to change that folder could change
// the bundle itself, and the user cache serves instead.
import {closeSync, constants, fstatSync, mkdirSync, openSync, readFileSync, statSync} from 'node:fs';
import {createRequire} from 'node:module';
import {dirname, join} from 'node:path';
import {fileURLToPath, pathToFileURL} from 'node:url';
import {Script} from 'node:vm';
import {crc32} from 'node:zlib';
import * as trust from '../lib/safe-write.js';
import type {TrustRule} from '../lib/safe-write.js';

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

/** The header of a cache svc wrote: a tag, then the CRC-32 of the bundle source, then that of the cache after it. */
const CACHE_TAG = Buffer.from('svcv8c2\n', 'latin1');
const DIGEST = 4;
export const CACHE_HEADER_SIZE = CACHE_TAG.length + 2 * DIGEST;

function checksum(bytes: Uint8Array): Buffer {
  const sum = Buffer.alloc(DIGEST);
  sum.writeUInt32BE(crc32(bytes));
  return sum;
}

/** V8's cache data with svc's header in front, for the bundle source it was compiled from. */
export function sealCache(data: Uint8Array, source: Uint8Array): Buffer {
  return Buffer.concat([CACHE_TAG, checksum(source), checksum(data), data]);
}

/** The bundle's bytes, and their checksum when first asked (only a run that meets or writes a cache needs it). */
class BundleSource {
  private digestValue: Buffer | undefined;
  constructor(readonly bytes: Buffer) {}
  get digest(): Buffer {
    this.digestValue ??= checksum(this.bytes);
    return this.digestValue;
  }
}

/** Each compiled bundle's source, for writeCache (the build calls it with the script alone). */
const sources = new WeakMap<Script, BundleSource>();

type CacheRead = {data: Buffer} | {missing: true} | {problem: string};

/**
 * The V8 data of a cache svc wrote for this bundle, checked as described at the top of this file; the folder is
 * checked by the caller. No bytes reach V8 unless every check passed.
 */
function trustedCache(file: string, source: BundleSource, rule: TrustRule): CacheRead {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // None yet, or a cache folder that cannot exist (a file in its path): made at exit, or quietly not.
    if (code === 'ENOENT' || code === 'ENOTDIR') return {missing: true};
    return {problem: code === 'ELOOP' ? 'it is a symbolic link' : `it could not be read (${code})`};
  }
  let bytes: Buffer;
  try {
    const problem = trust.fileProblem(fstatSync(fd), rule);
    if (problem) return {problem: `it ${problem}`};
    bytes = readFileSync(fd);
  } catch (err) {
    return {problem: `it could not be read (${(err as NodeJS.ErrnoException).code})`};
  } finally {
    closeSync(fd);
  }
  const data = bytes.subarray(CACHE_HEADER_SIZE);
  const sealed =
    bytes.length > CACHE_HEADER_SIZE &&
    bytes.subarray(0, CACHE_TAG.length).equals(CACHE_TAG) &&
    bytes.subarray(CACHE_TAG.length, CACHE_TAG.length + DIGEST).equals(source.digest) &&
    bytes.subarray(CACHE_TAG.length + DIGEST, CACHE_HEADER_SIZE).equals(checksum(data));
  return sealed
    ? {data}
    : {problem: 'its content does not match the checksums svc writes with a cache of this bundle'};
}

/**
 * Whether a cache in this folder may be read and written: a folder that does not exist (yet, or cannot be made)
 * is fine, the write at exit fails quietly; one that is not a folder or cannot be read is skipped quietly; one
 * that others can change, or another user's, is refused with the reason (`problem`), which is worth saying.
 */
function folderTrust(dir: string, rule: TrustRule): {usable: boolean; problem?: string} {
  let info: ReturnType<typeof statSync>;
  try {
    info = statSync(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return {usable: code === 'ENOENT' || code === 'ENOTDIR'};
  }
  if (!info.isDirectory()) return {usable: false};
  let problem: string | undefined;
  try {
    problem = trust.folderProblem(info, rule);
  } catch {
    // The check itself failed (no owner to compare with, say): no cache this time, and nothing to say about it.
    return {usable: false};
  }
  return problem ? {usable: false, problem} : {usable: true};
}

function warn(line: string): void {
  process.stderr.write(`svc: warning: ${line}\n`);
}

/**
 * Compiles and runs the bundle; undefined when there is none (a build without it, or a partial checkout),
 * and the caller loads the unbundled modules instead.
 */
export async function loadBundle(options: LoadBundleOptions): Promise<LoadedBundle | undefined> {
  const paths = bundlePaths(options.root);
  let bytes: Buffer;
  try {
    bytes = readFileSync(paths.bundle);
  } catch {
    return undefined;
  }
  // The build writes it in ASCII (scripts/bundle-cli.js): latin1 reads it without decoding.
  const text = bytes.toString('latin1');
  const source = new BundleSource(bytes);
  const buildId = text.startsWith(BUILD_ID_PREFIX)
    ? text.slice(BUILD_ID_PREFIX.length, text.indexOf('\n'))
    : '';

  const compile = (cachedData?: Buffer) => {
    const compiled = new Script(text, {filename: paths.bundle, cachedData});
    sources.set(compiled, source);
    return compiled;
  };
  let script: Script | undefined;
  if (!options.noCache && buildId) {
    // The install's own cache: the user's or root's, closed to others, sealed for this bundle; else skipped.
    const install: TrustRule = {root: true};
    const shippedFile = paths.shippedCache(buildId);
    if (folderTrust(dirname(shippedFile), install).usable) {
      const shipped = trustedCache(shippedFile, source, install);
      if ('data' in shipped) script = compile(shipped.data);
    }
    if (!script || script.cachedDataRejected) {
      // None shipped (the package leaves the build's out: it names the folder it was built in), or another Node
      // version or other V8 flags than the build's: keep a cache of our own beside the user's files.
      const dir = await userCacheDir();
      const own = join(dir, cacheFileName(buildId, paths.bundle));
      const folder = folderTrust(dir, {});
      if (folder.problem) {
        warn(
          `the cache folder ${dir} ${folder.problem}, so svc keeps no compiled code there and starts slower: set SVC_CACHE_DIR to a folder only you can write to.`,
        );
      } else if (folder.usable) {
        const cached = trustedCache(own, source, {});
        if ('data' in cached) script = compile(cached.data);
        else if ('problem' in cached) warn(`${own} was not used: ${cached.problem}. Writing it again.`);
        if (!script || script.cachedDataRejected) {
          script ??= compile();
          // At exit the cache holds every function this run compiled, not only the top level.
          const compiled = script;
          process.once('exit', () => writeCache(compiled, own));
        }
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
  const {cacheDir} = await import('../user-dirs.js');
  return cacheDir();
}

/**
 * Writes the script's cache with svc's header (sealCache), owner-only, whole and renamed into place, so a
 * concurrent run never reads half a file and nothing is written through a link (lib/safe-write.ts). The folder
 * must be the user's own and closed to others, as a cache is only read from such a folder; the install's own
 * (the build writes the shipped cache there) may be root's.
 */
export function writeCache(script: Script, file: string): void {
  try {
    const source = sources.get(script);
    if (!source) return;
    mkdirSync(dirname(file), {recursive: true, mode: 0o700});
    if (trust.folderProblem(statSync(dirname(file)), {root: true})) return;
    trust.writeOwnerOnly(file, sealCache(script.createCachedData(), source.bytes), {
      label: 'the code cache',
      replace: true,
    });
  } catch {
    // A read-only or full disk costs the next run its cache, nothing else.
  }
}
