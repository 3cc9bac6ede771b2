// The single executable's main script (docs/binary.md; scripts/build-binary.js bundles it). `--version`, which
// scripts ask in tight loops, is answered here, before anything is loaded; every other command runs start.ts, kept
// in the executable as an asset and compiled only then.
import {writeSync} from 'node:fs';
import {createRequire} from 'node:module';
import {getAsset} from 'node:sea';
import {runInThisContext} from 'node:vm';

/** Set by the build: the package's version and the hash that names this build's folder. */
declare const SVC_BINARY: {version: string; hash: string};

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
  // As bin/run.js answers it.
  const line = `svc/${SVC_BINARY.version} ${process.platform}-${process.arch} node-${process.version}\n`;
  // Straight to file descriptor 1, as bin/run.js does: process.stdout would first build a stream.
  try {
    writeSync(1, line);
  } catch {
    process.stdout.write(line);
  }
} else {
  const start = runInThisContext(`(function (require) {\n${getAsset('start.cjs', 'utf8')}\n})`, {
    filename: 'svc-binary-start.cjs',
  }) as (require: NodeJS.Require) => void;
  // A require for Node's own modules (all start.cjs asks for): the executable's main script has no file to
  // resolve from.
  start(createRequire(process.execPath));
}
