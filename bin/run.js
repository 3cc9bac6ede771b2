#!/usr/bin/env node
// The CLI's entry, in CommonJS (bin/package.json) so that `--version`, which scripts ask in tight loops, is
// answered before an ES module loader starts; everything else runs the bundled CLI.
const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
  const {readFileSync, writeSync} = require('node:fs');
  const {join} = require('node:path');
  const pkg = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8'));
  // Straight to file descriptor 1: process.stdout would first build a stream (and load its modules), which
  // costs more than everything else here.
  const line = `svc/${pkg.version} ${process.platform}-${process.arch} node-${process.version}\n`;
  try {
    writeSync(1, line);
  } catch {
    // A non-blocking stdout that is full right now (EAGAIN): the stream waits for room.
    process.stdout.write(line);
  }
} else {
  run().catch((err) => {
    // Errors of commands are rendered by the CLI itself; this is a failure to load it at all.
    process.stderr.write(`svc: ${err?.stack ?? err}\n`);
    process.exitCode = 1;
  });
}

async function run() {
  const {pathToFileURL} = require('node:url');
  const {dirname} = require('node:path');
  const root = dirname(__dirname);
  // oclif and the commands come from one bundled script with a code cache (see src/cli/loader.ts); a
  // build without the bundle runs the compiled modules instead.
  const {loadBundle} = await loader(root);
  const loaded = await loadBundle({root: pathToFileURL(`${root}/`)});
  if (loaded) {
    await loaded.bundle.run(root, argv);
  } else {
    const {execute} = await import('@oclif/core');
    // From the package root: oclif looks for the nearest package.json, and bin/'s own (which only marks
    // this folder CommonJS) has no name.
    await execute({dir: root});
  }
}

/**
 * The loader as CommonJS (dist/cli/loader.cjs, built beside the bundle): requiring it keeps Node's ES module
 * loader from starting, which a command that imports nothing else would pay for the loader alone. A build
 * without it imports the compiled module.
 */
async function loader(root) {
  const {join} = require('node:path');
  try {
    return require(join(root, 'dist', 'cli', 'loader.cjs'));
  } catch (err) {
    if (err?.code !== 'MODULE_NOT_FOUND') throw err;
    const {pathToFileURL} = require('node:url');
    return import(pathToFileURL(join(root, 'dist', 'src', 'cli', 'loader.js')).href);
  }
}
