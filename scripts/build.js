// Compiles TypeScript, copies SQL migrations and writes the oclif manifest so start-up never scans commands/.
import {spawnSync} from 'node:child_process';
import {cpSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync} from 'node:fs';
import {dirname, join} from 'node:path';
import {fileURLToPath} from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// `--clean` (what packing runs) starts from an empty dist/, so nothing compiled from a removed source ships.
if (process.argv.includes('--clean')) rmSync(join(root, 'dist'), {recursive: true, force: true});
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const result = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.json')], {stdio: 'inherit'});
if (result.status !== 0) {
  process.exitCode = result.status ?? 1;
  console.error('build: TypeScript reported errors');
}

// The library packages (@svc/webhooks, @svc/client), built from their folders in src/: the compiled emulator
// imports them by name, as an installed @svc/cli does.
const libs = spawnSync(process.execPath, [join(root, 'scripts', 'build-libs.js')], {stdio: 'inherit'});
if (libs.status !== 0) {
  process.exitCode = libs.status ?? 1;
  console.error('build: the library packages could not be built');
}

const migrations = join(root, 'src', 'emulator', 'db', 'migrations');
if (existsSync(migrations)) {
  const out = join(root, 'dist', 'src', 'emulator', 'db', 'migrations');
  // Start clean: a renamed or removed migration left behind in dist would still be applied.
  rmSync(out, {recursive: true, force: true});
  mkdirSync(out, {recursive: true});
  for (const file of readdirSync(migrations)) cpSync(join(migrations, file), join(out, file));
}
const assets = join(root, 'src', 'emulator', 'web', 'assets');
if (existsSync(assets))
  cpSync(assets, join(root, 'dist', 'src', 'emulator', 'web', 'assets'), {recursive: true});

const {Plugin} = await import('@oclif/core');
const plugin = new Plugin({root, type: 'core', ignoreManifest: true, errorOnManifestCreate: true});
await plugin.load();
writeFileSync(join(root, 'oclif.manifest.json'), JSON.stringify(plugin.manifest, null, 2) + '\n');

// The CLI bundle and its code cache: what bin/run.js loads (the cache is made by running the built CLI).
const cli = spawnSync(process.execPath, [join(root, 'scripts', 'bundle-cli.js')], {stdio: 'inherit'});
if (cli.status !== 0) {
  process.exitCode = cli.status ?? 1;
  console.error('build: the CLI bundle could not be built');
}

// A migrated emulator database to copy from, so a fresh emulator starts in well under a second.
const template = spawnSync(process.execPath, [join(root, 'scripts', 'prepare-template.js')], {
  stdio: 'inherit',
});
if (template.status !== 0) {
  process.exitCode = template.status ?? 1;
  console.error('build: the emulator database template could not be prepared');
}
