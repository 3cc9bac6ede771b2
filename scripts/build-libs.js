// Builds the two library packages from their folders in src/: @svc/webhooks (no runtime dependency) and
// @svc/client (zod only). Each is one bundle per entry, ESM and CommonJS, with bundled type declarations, so
// the shared definitions (src/definitions.ts, src/schemas) travel inside each package instead of being copied
// by hand. Code shared by a package's entries sits in chunks of that package, so `@svc/webhooks` and
// `@svc/webhooks/node` hand out the same error classes. `node scripts/build-libs.js`.
import {copyFileSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {dirname, join} from 'node:path';
import {fileURLToPath} from 'node:url';
import {build} from 'tsup';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The service's own addresses are facts of a deployment, set at build time (CONTRACT §9). Unset here, the
 * client has no default and asks for an address instead of guessing one.
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
  {folder: 'client', entries: ['index'], platform: 'node'},
];

async function buildLibrary({folder, entries, platform}) {
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
    treeshake: false,
    sourcemap: false,
    clean: false,
    silent: true,
  };
  await build({
    ...common,
    format: ['esm', 'cjs'],
    dts: false,
    // import.meta.url in the CommonJS copies becomes the file's URL: it is a syntax error in a CommonJS file.
    shims: true,
    define: {...buildSettings(), __SVC_PACKAGE_VERSION__: JSON.stringify(pkg.version)},
  });
  // Bundled declarations (rollup-plugin-dts), made once for ESM; the CommonJS copies differ only in the
  // extension of the chunks they import, so every moduleResolution a consumer uses finds its own kind.
  await build({
    ...common,
    format: ['esm'],
    dts: {only: true, compilerOptions: {composite: false, incremental: false, paths: {}}},
  });
  // One license text for the project: each package carries a copy made here.
  copyFileSync(join(root, 'LICENSE'), join(dir, 'LICENSE'));
  for (const file of readdirSync(outDir).filter((f) => f.endsWith('.d.ts'))) {
    const text = readFileSync(join(outDir, file), 'utf8');
    const cts = text.replace(/(from\s+'\.\/[^']+)\.js'/g, "$1.cjs'");
    writeFileSync(join(outDir, file.replace(/\.d\.ts$/, '.d.cts')), cts);
  }
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
