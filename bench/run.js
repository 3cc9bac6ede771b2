#!/usr/bin/env node
// Runs every bench/*.bench.js (or those named on the command line: `node bench/run.js verify startup`),
// one after another, each in its own Node process, and passes their output through.
import {spawnSync} from 'node:child_process';
import {existsSync, readdirSync} from 'node:fs';
import {basename, dirname, join} from 'node:path';
import {fileURLToPath} from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');

if (!existsSync(join(root, 'dist', 'src', 'emulator', 'index.js'))) {
  process.stderr.write('bench: dist/ is missing; run `npm run build` first (or `npm run bench`).\n');
  process.exit(1);
}

const available = readdirSync(here)
  .filter((f) => f.endsWith('.bench.js'))
  .sort();
const wanted = process.argv.slice(2).map((arg) => {
  const name = basename(arg).replace(/(\.bench)?\.js$/, '');
  const file = `${name}.bench.js`;
  if (!available.includes(file)) {
    process.stderr.write(`bench: no bench/${file}; available: ${available.join(', ')}\n`);
    process.exit(2);
  }
  return file;
});
const files = wanted.length > 0 ? wanted : available;

const failed = [];
for (const file of files) {
  process.stdout.write(`== ${file}\n`);
  const started = Date.now();
  const result = spawnSync(process.execPath, [join(here, file)], {stdio: 'inherit', cwd: root});
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (result.status !== 0) failed.push(file);
  process.stdout.write(
    `== ${file}: ${result.status === 0 ? 'done' : `exit ${result.status ?? result.signal}`} in ${seconds} s\n\n`,
  );
}
if (failed.length > 0) {
  process.stderr.write(`bench: ${failed.length} failed: ${failed.join(', ')}\n`);
  process.exitCode = 1;
}
