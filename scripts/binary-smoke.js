// Tests the single executable as a user gets it (docs/binary.md): builds it from the current dist/ (or takes the
// one named by --binary PATH), copies it to a fresh folder far from the source tree, and runs
// test/binary/launcher.smoke.mjs and test/binary/executable.smoke.mjs with node --test, which run every svc from
// that copy with no node on the PATH.
// `npm run test:binary` (after `npm run build`), or `npm run test:binary -- --binary dist/binary/svc-linux-x64`.
import {spawnSync} from 'node:child_process';
import {chmodSync, copyFileSync, mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {dirname, join, resolve} from 'node:path';
import {fileURLToPath} from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const given = process.argv.indexOf('--binary');
let binary = given >= 0 ? resolve(process.argv[given + 1] ?? '') : undefined;
if (!binary) {
  const built = spawnSync(process.execPath, [join(root, 'scripts', 'build-binary.js')], {stdio: 'inherit'});
  if (built.status !== 0) {
    console.error('binary-smoke: the executable could not be built');
    process.exit(1);
  }
  binary = join(root, 'dist', 'binary', 'svc-linux-x64');
}

const work = mkdtempSync(join(tmpdir(), 'svc-binary-'));
let status = 1;
try {
  const copy = join(work, 'svc-linux-x64');
  copyFileSync(binary, copy);
  chmodSync(copy, 0o755);
  const test = spawnSync(
    process.execPath,
    [
      '--test',
      '--test-reporter=spec',
      '--test-concurrency=1',
      join(root, 'test', 'binary', 'launcher.smoke.mjs'),
      join(root, 'test', 'binary', 'executable.smoke.mjs'),
    ],
    {stdio: 'inherit', env: {...process.env, SVC_BINARY: copy}},
  );
  status = test.status ?? 1;
} finally {
  rmSync(work, {recursive: true, force: true});
}
process.exitCode = status;
