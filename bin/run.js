#!/usr/bin/env node
// `--version` is answered without loading oclif: it is asked by scripts in tight loops.
const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
  const {readFileSync} = await import('node:fs');
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`svc/${pkg.version} ${process.platform}-${process.arch} node-${process.version}\n`);
} else {
  // oclif and the commands come from one bundled script with a code cache (see src/cli/loader.ts); a
  // build without the bundle runs the compiled modules instead.
  const {loadBundle} = await import('../dist/src/cli/loader.js');
  const loaded = await loadBundle({root: new URL('../', import.meta.url)});
  if (loaded) {
    const {fileURLToPath} = await import('node:url');
    const {dirname} = await import('node:path');
    await loaded.bundle.run(dirname(dirname(fileURLToPath(import.meta.url))), argv);
  } else {
    const {execute} = await import('@oclif/core');
    await execute({dir: import.meta.url});
  }
}
