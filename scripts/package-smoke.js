// Tests the artifacts, not the tree: packs @svc/cli (its prepack is a clean build), @svc/webhooks and
// @svc/client, checks each tarball with publint and @arethetypeswrong/cli, installs each alone into its own
// fresh project under the temp dir (the CLI also into a global prefix), and runs test/package/*.smoke.mjs from
// those projects with node --test, so everything they import and run comes from the installed copies.
//
//   npm run test:package                       on this Node
//   npm run test:package -- --node /path/node  the installed packages and the tests run on that Node (npm
//                                              itself stays this machine's); given several times, the packages
//                                              are checked and installed once and the tests run on each Node in
//                                              turn (what npm installs does not depend on the Node that runs it:
//                                              CI passes every tested version to one run)
//   --keep                                     keep the work folder and say where it is
//   --packed DIR                               reuse the three tarballs of an earlier run (from --keep or
//                                              --pack-only)
//   --pack-only DIR                            pack the three packages into DIR and stop (CI packs once and
//                                              tests the same tarballs on every Node version)
import {spawnSync} from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import {tmpdir} from 'node:os';
import {delimiter, dirname, join, resolve} from 'node:path';
import {fileURLToPath} from 'node:url';
import {CHROMIUM_PATH} from './chromium-path.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
/** Every value an option is given (`--node` may be given more than once). */
function options(name) {
  const values = [];
  args.forEach((arg, at) => {
    if (arg !== name) return;
    const value = args[at + 1];
    if (!value) {
      console.error(`package-smoke: ${name} needs a value`);
      process.exit(2);
    }
    values.push(value);
  });
  return values;
}
const option = (name) => options(name)[0];
const keep = args.includes('--keep');
const given = options('--node');
const nodes = (given.length > 0 ? given : [process.execPath]).map((n) => resolve(n));
const packed = option('--packed');
const work = realpathSync(mkdtempSync(join(tmpdir(), 'svc-package-')));

const PACKAGES = {cli: '@svc/cli', webhooks: '@svc/webhooks', client: '@svc/client'};

function log(message) {
  console.error(`package-smoke: ${message}`);
}

function run(command, commandArgs, {cwd, env = process.env, capture = true} = {}) {
  const started = Date.now();
  const r = spawnSync(command, commandArgs, {
    cwd,
    env,
    stdio: ['ignore', capture ? 'pipe' : 'inherit', capture ? 'pipe' : 'inherit'],
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return {code: r.status ?? 1, stdout: r.stdout ?? '', stderr: r.stderr ?? '', ms: Date.now() - started};
}

function npm(npmArgs, cwd) {
  const r = run('npm', [...npmArgs, '--no-audit', '--no-fund', '--loglevel=error'], {cwd});
  if (r.code !== 0) {
    log(`npm ${npmArgs.join(' ')} failed (exit ${r.code})\n${r.stderr}`);
    process.exit(1);
  }
  log(`npm ${npmArgs.join(' ')} (${r.ms} ms)`);
  return r.stdout;
}

/** Packs the three packages into `dir`: the root first, whose prepack builds the libraries too. */
function pack(dir) {
  npm(['pack', '--pack-destination', dir], root);
  npm(['pack', '-w', 'src/webhooks', '-w', 'src/client', '--pack-destination', dir], root);
  return tarballsIn(dir);
}

function tarballsIn(dir) {
  const files = readdirSync(dir);
  const find = (prefix) => {
    const file = files.find((f) => f.startsWith(prefix) && f.endsWith('.tgz'));
    if (!file) {
      log(`no ${prefix}*.tgz in ${dir}`);
      process.exit(1);
    }
    return join(dir, file);
  };
  return {cli: find('svc-cli-'), webhooks: find('svc-webhooks-'), client: find('svc-client-')};
}

// Every resolution a consumer's TypeScript uses (node10, node16 from CJS and from ESM, bundler), every entry.
// @svc/cli alone is ESM by design (`svc` is a program; `@svc/cli/emulator` is imported by test suites, and
// Node >= 20.19 also loads it with require): its profile leaves out the CommonJS-to-ESM rule, and node10,
// which knows no `exports` and so cannot name `@svc/cli/emulator` at all.
const ATTW_PROFILE = {cli: ['--profile', 'esm-only'], webhooks: [], client: []};

function lint(tarballs) {
  const failures = [];
  for (const [key, tarball] of Object.entries(tarballs)) {
    const publint = run('npx', ['--no-install', 'publint', '--strict', tarball], {cwd: root});
    const attw = run(
      'npx',
      ['--no-install', 'attw', tarball, '--format', 'table-flipped', ...ATTW_PROFILE[key]],
      {cwd: root},
    );
    for (const [tool, r] of [
      ['publint', publint],
      ['attw', attw],
    ]) {
      log(`${tool} ${PACKAGES[key]}: ${r.code === 0 ? 'ok' : 'FAILED'}`);
      if (r.code !== 0) {
        failures.push(`${tool} ${PACKAGES[key]}`);
        process.stderr.write(`${r.stdout}${r.stderr}\n`);
      }
    }
  }
  return failures;
}

function project(name, extra = {}) {
  const dir = join(work, name);
  mkdirSync(dir, {recursive: true});
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify({name: `svc-smoke-${name.replace(/\W/g, '-')}`, version: '1.0.0', private: true, ...extra}, null, 2)}\n`,
  );
  return dir;
}

/** Runs test files from `app` with node --test on one of the chosen Nodes; true when they pass. */
function smoke(node, app, files, env) {
  for (const file of files) copyFileSync(join(root, 'test', 'package', file), join(app, file));
  log(`node --test ${files.join(' ')} (in ${app}, Node ${versions.get(node)})`);
  const r = run(node, ['--test', '--test-concurrency=1', '--test-reporter=spec', ...files], {
    cwd: app,
    env,
    capture: false,
  });
  return r.code === 0;
}

const packOnly = option('--pack-only');
if (packOnly) {
  mkdirSync(resolve(packOnly), {recursive: true});
  const tarballs = pack(resolve(packOnly));
  for (const tarball of Object.values(tarballs)) log(`packed ${tarball}`);
  rmSync(work, {recursive: true, force: true});
  process.exit(0);
}

const versions = new Map(nodes.map((node) => [node, run(node, ['--version']).stdout.trim()]));
for (const [node, version] of versions) {
  if (!version) {
    log(`${node} does not run`);
    rmSync(work, {recursive: true, force: true});
    process.exit(2);
  }
}

let status = 1;
try {
  const tarballs = packed ? tarballsIn(resolve(packed)) : pack(work);
  const failures = lint(tarballs);

  // Each package alone in its own project, as its users install it.
  const cliApp = project('cli', {type: 'module'});
  npm(['install', tarballs.cli], cliApp);
  const prefix = join(work, 'global');
  npm(['install', '--global', '--prefix', prefix, tarballs.cli], work);
  const webhooksApp = project('webhooks', {type: 'module'});
  npm(['install', tarballs.webhooks], webhooksApp);
  // Express beside it, in a CommonJS project of its own below it: `npm ls` of the webhooks project shows
  // only @svc/webhooks, and the Express app still finds it (node_modules above).
  const expressApp = project(join('webhooks', 'express-app'), {type: 'commonjs'});
  npm(['install', 'express@5', '--prefer-offline'], expressApp);
  const clientApp = project('client', {type: 'module'});
  npm(['install', tarballs.client], clientApp);

  const cache = run('npm', ['config', 'get', 'cache']).stdout.trim();
  const userconfig = run('npm', ['config', 'get', 'userconfig']).stdout.trim();
  // How this machine reaches the registry (proxies, trusted certificate authorities, npm's user settings): the
  // tests hand them, named in SVC_SMOKE_NETWORK_VARS, to the npx they run, whose HOME is a fresh one.
  const network = Object.fromEntries(
    Object.entries(process.env).filter(([name]) =>
      /^(NODE_EXTRA_CA_CERTS|SSL_CERT_FILE|SSL_CERT_DIR|(HTTPS?|NO|ALL)_PROXY|(https?|no|all)_proxy)$/.test(
        name,
      ),
    ),
  );
  network.npm_config_userconfig = userconfig;
  /** What the tests get on one Node: that Node first on the PATH, and everything the installs made. */
  const envFor = (node) => ({
    ...network,
    SVC_SMOKE_NETWORK_VARS: Object.keys(network).join(','),
    // The chosen Node first on the PATH: `svc`'s shebang, npx and the tests' own children all run on it.
    PATH: [dirname(node), process.env.PATH].join(delimiter),
    HOME: process.env.HOME,
    SVC_SMOKE_NODE: node,
    SVC_SMOKE_TREE: root,
    // The browser smoke test drives the Chromium the page tests drive.
    SVC_CHROMIUM_PATH: CHROMIUM_PATH,
    SVC_SMOKE_WORK: work,
    SVC_SMOKE_CLI_TARBALL: tarballs.cli,
    SVC_SMOKE_CLI_APP: cliApp,
    SVC_SMOKE_GLOBAL_BIN: join(prefix, 'bin'),
    SVC_SMOKE_WEBHOOKS_APP: webhooksApp,
    SVC_SMOKE_CLIENT_APP: clientApp,
    SVC_SMOKE_EXPRESS_APP: expressApp,
    npm_config_cache: cache,
  });
  const failedOn = [];
  for (const node of nodes) {
    const env = envFor(node);
    const passed = [
      smoke(node, webhooksApp, ['webhooks.smoke.mjs'], env),
      smoke(node, clientApp, ['client.smoke.mjs'], env),
      smoke(node, cliApp, ['installed.smoke.mjs', 'template.smoke.mjs'], env),
    ];
    const version = versions.get(node);
    if (passed.includes(false)) failedOn.push(version);
    log(
      passed.includes(false)
        ? `smoke tests FAILED on Node ${version}`
        : `smoke tests pass on Node ${version}`,
    );
  }
  if (failedOn.length > 0) failures.push(`smoke tests on Node ${failedOn.join(', ')}`);
  const all = [...versions.values()].join(', ');
  if (failures.length > 0) log(`FAILED: ${failures.join('; ')}`);
  else log(`all packages pass on Node ${all}`);
  status = failures.length > 0 ? 1 : 0;
} finally {
  if (keep) log(`kept ${work}`);
  else if (existsSync(work)) rmSync(work, {recursive: true, force: true});
}
process.exitCode = status;
