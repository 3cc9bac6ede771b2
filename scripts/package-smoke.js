// Tests the artifact, not the tree: packs the package, installs the tarball into a fresh project and a fresh
// global prefix outside the source tree, and runs test/package/installed.smoke.mjs from that project with
// node --test, so everything it imports and runs comes from the installed copy. `npm run test:package`.
import {spawnSync} from 'node:child_process';
import {copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {dirname, join} from 'node:path';
import {fileURLToPath} from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const work = mkdtempSync(join(tmpdir(), 'svc-package-'));
const keep = process.argv.includes('--keep');

function npm(args, cwd) {
  const started = Date.now();
  const r = spawnSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd,
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
  });
  if (r.status !== 0) {
    console.error(`package-smoke: npm ${args.join(' ')} failed (exit ${r.status})`);
    process.exit(1);
  }
  console.error(`package-smoke: npm ${args[0]} ${args.at(-1)} (${Date.now() - started} ms)`);
  return r.stdout;
}

let status = 1;
try {
  // Packing runs prepack, a clean build: the tarball holds what a fresh build makes, nothing left over.
  npm(['pack', '--pack-destination', work], root);
  const tarball = join(
    work,
    readdirSync(work).find((f) => f.endsWith('.tgz')),
  );

  const app = join(work, 'app');
  mkdirSync(app);
  writeFileSync(
    join(app, 'package.json'),
    `${JSON.stringify({name: 'svc-smoke-app', version: '1.0.0', private: true, type: 'module'}, null, 2)}\n`,
  );
  npm(['install', tarball], app);
  const prefix = join(work, 'global');
  npm(['install', '--global', '--prefix', prefix, tarball], work);

  copyFileSync(join(root, 'test', 'package', 'installed.smoke.mjs'), join(app, 'installed.smoke.mjs'));
  const cache = spawnSync('npm', ['config', 'get', 'cache'], {encoding: 'utf8'}).stdout.trim();
  const test = spawnSync(process.execPath, ['--test', '--test-reporter=spec', 'installed.smoke.mjs'], {
    cwd: app,
    stdio: 'inherit',
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      SVC_SMOKE_TARBALL: tarball,
      SVC_SMOKE_GLOBAL_BIN: join(prefix, 'bin'),
      SVC_SMOKE_TREE: root,
      npm_config_cache: cache,
    },
  });
  status = test.status ?? 1;
} finally {
  if (keep) console.error(`package-smoke: kept ${work}`);
  else rmSync(work, {recursive: true, force: true});
}
process.exitCode = status;
