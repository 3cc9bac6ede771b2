// Builds the two library packages from their folders in src/: @svc/webhooks (no runtime dependency) and
// @svc/client (zod only). Each is one bundle per entry, ESM and CommonJS, with bundled type declarations, so
// the shared definitions (src/definitions.ts, src/schemas) travel inside each package instead of being copied
// by hand. Code shared by a package's entries sits in chunks of that package, so `@svc/webhooks` and
// `@svc/webhooks/node` hand out the same error classes. `node scripts/build-libs.js`.
import {copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {dirname, join} from 'node:path';
import {fileURLToPath} from 'node:url';
import {build} from 'tsup';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The service's own addresses are facts of a deployment: set at build time, never written in the source. Unset
 * here, the client has no default and asks for an address instead of guessing one.
 */
export function buildSettings(env = process.env) {
  const setting = (name) => (env[name] ? JSON.stringify(env[name]) : 'undefined');
  return {
    __SVC_DEFAULT_API_URL__: setting('SVC_DEFAULT_API_URL'),
    __SVC_DEFAULT_ACCOUNT_URL__: setting('SVC_DEFAULT_ACCOUNT_URL'),
  };
}

export const LIBRARIES = [
  {folder: 'webhooks', entries: ['index', 'node', 'express', 'fetch', 'web'], platform: 'neutral'},
  // The client carries the part of zod it uses inside its bundle: it installs with no dependency at all, and
  // a CLI tarball that holds it needs no copy of zod's whole package beside it.
  {folder: 'client', entries: ['index'], platform: 'node', inline: ['zod']},
];

/**
 * The CommonJS files, each made from the ES module file of the same name (`dist/index.js` ->
 * `dist/cjs/index.js`, every chunk likewise; `dist/cjs/package.json` marks the folder CommonJS): one build of the
 * code, so both kinds of consumer run the same code. npm packs files grouped by extension and then by path, so
 * each CommonJS file sits a few kilobytes after its twin, where gzip stores it almost for free (the `.cjs`
 * extension would have put every declaration file between them). `import.meta.url` becomes the file's own URL.
 */
async function commonJsFrom(outDir) {
  const {transform} = await import('esbuild');
  const cjsDir = join(outDir, 'cjs');
  mkdirSync(cjsDir, {recursive: true});
  writeFileSync(join(cjsDir, 'package.json'), '{"type": "commonjs"}\n');
  for (const file of readdirSync(outDir).filter((f) => f.endsWith('.js'))) {
    const source = readFileSync(join(outDir, file), 'utf8');
    const usesOwnUrl = source.includes('import.meta.url');
    const {code} = await transform(source, {
      format: 'cjs',
      // Node's platform adds the note of export names Node reads when an ES module imports the file.
      platform: 'node',
      target: 'es2022',
      minifyWhitespace: true,
      define: usesOwnUrl ? {'import.meta.url': '__svcOwnUrl'} : {},
      banner: usesOwnUrl ? 'var __svcOwnUrl=require("node:url").pathToFileURL(__filename).href;' : '',
    });
    // A chunk loaded later (`import()` in the ES module) is required when it is first asked for.
    const cjs = code.replace(/\bimport\("(\.\/[^"]+\.js)"\)/g, 'Promise.resolve().then(()=>require("$1"))');
    writeFileSync(join(cjsDir, file), cjs);
  }
}

async function buildLibrary({folder, entries, platform, inline = []}) {
  const dir = join(root, 'src', folder);
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const outDir = join(dir, 'dist');
  rmSync(outDir, {recursive: true, force: true});
  const common = {
    entry: Object.fromEntries(entries.map((name) => [name, join(dir, `${name}.ts`)])),
    outDir,
    splitting: true,
    platform,
    target: 'es2022',
    tsconfig: join(root, 'tsconfig.json'),
    external: [...Object.keys(pkg.dependencies ?? {}), /^node:/],
    noExternal: inline,
    treeshake: false,
    sourcemap: false,
    clean: false,
    silent: true,
  };
  const code = {
    ...common,
    dts: false,
    define: {...buildSettings(), __SVC_PACKAGE_VERSION__: JSON.stringify(pkg.version)},
    // Local names and whitespace: exported functions and classes keep their names (keepNames), so a
    // receiver's stack trace still reads.
    minifyWhitespace: true,
    minifyIdentifiers: true,
    keepNames: true,
  };
  // Syntax minified too, which drops the definitions a package does not use.
  await build({...code, format: ['esm'], minifySyntax: true});
  await commonJsFrom(outDir);
  // Bundled declarations (rollup-plugin-dts), made once. They are shipped as CommonJS declarations (.d.cts,
  // importing .cjs chunks); each ESM entry's .d.ts re-exports its .d.cts, so both kinds of consumer, in
  // every moduleResolution, see one set of types and the package carries them once.
  await build({
    ...common,
    format: ['esm'],
    dts: {only: true, compilerOptions: {composite: false, incremental: false, paths: {}}},
  });
  for (const file of readdirSync(outDir).filter((f) => f.endsWith('.d.ts'))) {
    const text = readFileSync(join(outDir, file), 'utf8');
    const cts = text.replace(/((?:from\s+|import\s+)'\.\/[^']+)\.js'/g, "$1.cjs'");
    writeFileSync(join(outDir, file.replace(/\.d\.ts$/, '.d.cts')), cts);
    const entry = file.replace(/\.d\.ts$/, '');
    if (entries.includes(entry)) writeFileSync(join(outDir, file), `export * from './${entry}.cjs';\n`);
    else rmSync(join(outDir, file));
  }
  // One license text for the project: each package carries a copy made here.
  copyFileSync(join(root, 'LICENSE'), join(dir, 'LICENSE'));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // A package's own prepack runs this from its folder; the declarations are made relative to the tree's root.
  process.chdir(root);
  const started = Date.now();
  // `--only webhooks` builds one (what a package's own prepack runs).
  const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : undefined;
  for (const library of LIBRARIES) if (!only || library.folder === only) await buildLibrary(library);
  console.error(
    `build-libs: ${LIBRARIES.map((l) => `@svc/${l.folder}`).join(', ')} (${Date.now() - started} ms)`,
  );
}
