// What the single executable runs for every command but --version (main.ts): it makes sure the build's files are
// on disk and whole (cache.ts), then runs the CLI from them as the npm package's bin does: oclif, the emulator,
// PGlite's thread and the keyring's addon all load from files there. scripts/build-binary.js bundles it as
// CommonJS into an asset of the executable, so that what it loads (hashing, gzip) costs --version nothing.
import {existsSync, rmSync} from 'node:fs';
import {createRequire} from 'node:module';
import {join} from 'node:path';
import {getAsset, getRawAsset} from 'node:sea';
import {gunzipSync} from 'node:zlib';
import {cacheDir} from '../user-dirs.js';
import {
  cacheFolder,
  cacheProblem,
  checkedBefore,
  type PayloadIndex,
  recordCheck,
  writeCache,
} from './cache.js';

/** Set by the build: the package's version and the hash that names this build's folder. */
declare const SVC_BINARY: {version: string; hash: string};

function fail(message: string): never {
  process.stderr.write(`svc: ${message}\n`);
  process.exit(1);
}

/** The folder holding this build's files, written (again) when it is missing or differs in any way. */
function ensureFiles(): string {
  const index = JSON.parse(getAsset('index.json', 'utf8')) as PayloadIndex;
  const dir = cacheFolder(cacheDir(), SVC_BINARY.hash);
  if (existsSync(dir)) {
    if (checkedBefore(dir, index)) return dir;
    let problem: string | undefined;
    try {
      problem = cacheProblem(dir, index);
    } catch (err) {
      problem = (err as Error).message;
    }
    if (problem === undefined) {
      recordCheck(dir, index);
      return dir;
    }
    process.stderr.write(`svc: warning: ${dir} was not used: ${problem}. Writing it again.\n`);
  }
  try {
    rmSync(dir, {recursive: true, force: true});
    writeCache(dir, index, gunzipSync(new Uint8Array(getRawAsset('payload.gz') as ArrayBuffer)));
  } catch (err) {
    fail(
      `could not write its files to ${dir} (${(err as Error).message}); set SVC_CACHE_DIR to a folder you can write`,
    );
  }
  const again = cacheProblem(dir, index);
  if (again) fail(`its files in ${dir} cannot be used: ${again}`);
  recordCheck(dir, index);
  return dir;
}

const root = ensureFiles();
const entry = join(root, 'bin', 'run.js');
createRequire(entry)(entry);
