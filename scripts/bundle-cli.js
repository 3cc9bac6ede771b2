// Builds dist/cli/bundle.cjs: oclif, every command, src/ and zod in one script that bin/run.js runs with a
// V8 code cache (src/cli/loader.ts), and that cache, made by running a few commands so it holds what they
// compile. Heavy modules only some commands need stay outside and load when used: the emulator (PGlite finds
// its wasm beside its own module), undici, ink and react, the MCP SDK, the keyring's native module.
// Run after tsc and the manifest: `node scripts/bundle-cli.js`.
import {spawnSync} from 'node:child_process';
import {createHash} from 'node:crypto';
import {mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {createServer} from 'node:http';
import {dirname, join, relative} from 'node:path';
import {fileURLToPath, pathToFileURL} from 'node:url';
import {buildSettings} from './build-libs.js';
import {asciiOnly, bundleOnly, LAZY_HELPER, lazyNodeModules, routeDynamicImports} from './bundle-edits.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const rootUrl = pathToFileURL(`${root}/`);
const outDir = join(root, 'dist', 'cli');
const loaderUrl = new URL('dist/src/cli/loader.js', rootUrl).href;

/** Packages left out of the bundle: loaded with import() by the few commands that need them. */
const EXTERNAL_PACKAGES = new Set([
  '@electric-sql/pglite',
  '@hono/node-server',
  '@modelcontextprotocol/sdk',
  '@napi-rs/keyring',
  // Only for `svc scenario run`, which checks each file against its JSON Schema.
  'ajv',
  'hono',
  'ink',
  'pg',
  'react',
  // oclif reads tsconfig.json with it only when developing (bin/dev.js runs unbundled anyway).
  'typescript',
  'undici',
  // Only for seed files written in YAML.
  'yaml',
]);
/** `@svc/client` and `@svc/webhooks` resolve to their folders in src/ (the packages are built from them). */
const LIBRARY_SOURCES = {
  '@svc/client': join(root, 'src', 'client', 'index.ts'),
  '@svc/webhooks': join(root, 'src', 'webhooks', 'index.ts'),
};
/** The emulator's entry (server, database, worker) stays out too: the compiled copy in dist/ is loaded. */
const EXTERNAL_FILES = [join(root, 'src', 'emulator', 'index.ts')];
/**
 * The TUI's entry (Ink, React, yoga's wasm) is a bundle of its own, ESM (yoga loads with a top-level await), with
 * React's production build: loading Ink's few hundred files one by one, development React included, cost more
 * than the whole first screen is allowed. `svc tui` imports it; no other command does.
 */
const TUI_ENTRY = join(root, 'src', 'ui', 'tui', 'index.tsx');
const TUI_BUNDLE = 'tui.mjs';
/** The loader as CommonJS, for bin/run.js (see bundleLoader). */
const LOADER_BUNDLE = 'loader.cjs';

/** The libraries' other entries (`@svc/webhooks/web`) resolve to their files in src/ too, as tsconfig's paths do. */
const libraryEntries = {
  name: 'svc-library-entries',
  setup(build) {
    build.onResolve({filter: /^@svc\/(client|webhooks)\/[\w-]+$/}, (args) => {
      const [, folder, entry] = args.path.split('/');
      return {path: join(root, 'src', folder, `${entry}.ts`)};
    });
  },
};

function packageName(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

const externals = {
  name: 'svc-externals',
  setup(build) {
    build.onResolve({filter: /^[^./]/}, (args) =>
      EXTERNAL_PACKAGES.has(packageName(args.path)) ? {path: args.path, external: true} : undefined,
    );
    build.onResolve({filter: /^\./}, async (args) => {
      if (args.pluginData?.resolving) return undefined;
      const resolved = await build.resolve(args.path, {
        kind: args.kind,
        resolveDir: args.resolveDir,
        pluginData: {resolving: true},
      });
      if (resolved.path === TUI_ENTRY) {
        if (args.kind !== 'dynamic-import')
          return {errors: [{text: `${args.path} must be loaded with import()`}]};
        return {path: `./${TUI_BUNDLE}`, external: true};
      }
      if (!EXTERNAL_FILES.includes(resolved.path)) return resolved.errors.length ? undefined : resolved;
      if (args.kind !== 'dynamic-import') {
        return {
          errors: [{text: `${args.path} must be loaded with import(): it stays out of the CLI bundle`}],
        };
      }
      // Relative to the bundle, which is how the loader resolves the bundle's import() calls.
      const compiled = relative(root, resolved.path).replace(/\.tsx?$/, '.js');
      return {
        path: relative(outDir, join(root, 'dist', compiled))
          .split('\\')
          .join('/'),
        external: true,
      };
    });
  },
};

async function bundle() {
  const esbuild = await import('esbuild');
  const {BUILD_ID_PREFIX, BUNDLE_PARAMETERS} = await import(loaderUrl);
  const result = await esbuild.build({
    entryPoints: [join(root, 'src', 'cli', 'main.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    write: false,
    metafile: true,
    logLevel: 'warning',
    plugins: [libraryEntries, externals, bundleOnly],
    minifyWhitespace: true,
    // The libraries from their sources, as tsc sees them: one copy in the bundle, whatever was built before.
    alias: LIBRARY_SOURCES,
    // The bundle's own URL stands in for each bundled module's: the only use (the package version lookup)
    // walks up to package.json, which it finds from dist/cli as it does from dist/src.
    define: {'import.meta.url': '__svcImportMetaUrl', ...buildSettings()},
    banner: {
      js: `var __svcImportMetaUrl = require("node:url").pathToFileURL(__filename).href;\n${LAZY_HELPER}`,
    },
  });
  const bundled = Object.keys(result.metafile.inputs);
  const leaked = bundled.filter((f) => [...EXTERNAL_PACKAGES].some((p) => f.includes(`node_modules/${p}/`)));
  if (leaked.length > 0) throw new Error(`bundle-cli: heavy modules were bundled: ${leaked.join(', ')}`);

  const {code} = await routeDynamicImports(lazyNodeModules(asciiOnly(result.outputFiles[0].text)));
  const body = `(function (${BUNDLE_PARAMETERS.join(', ')}) {\n${code}\n})\n`;
  const buildId = createHash('sha256').update(body).digest('hex').slice(0, 16);
  rmSync(outDir, {recursive: true, force: true});
  mkdirSync(outDir, {recursive: true});
  writeFileSync(join(outDir, 'bundle.cjs'), `${BUILD_ID_PREFIX}${buildId}\n${body}`);
  return {buildId, modules: bundled.length, bytes: body.length};
}

/**
 * dist/cli/loader.cjs: src/cli/loader.ts (and what it imports) as one CommonJS file, which bin/run.js requires.
 * Importing the compiled ES module instead starts Node's ES module loader, which costs a read command about a
 * tenth of its time and nothing else needs: the bundle is a script, and the few modules it leaves out load
 * with import() only when a command asks for them.
 */
async function bundleLoader() {
  const esbuild = await import('esbuild');
  await esbuild.build({
    entryPoints: [join(root, 'src', 'cli', 'loader.ts')],
    outfile: join(outDir, LOADER_BUNDLE),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    logLevel: 'warning',
    // Its one use (if any) is a package lookup relative to the file: dist/cli finds what dist/src/cli does.
    define: {'import.meta.url': '__svcImportMetaUrl'},
    banner: {js: 'var __svcImportMetaUrl = require("node:url").pathToFileURL(__filename).href;'},
  });
}

/**
 * Yoga (Ink's layout engine) carries its wasm inline, as a data: URL, and reads it back with fetch(), which
 * loads Node's whole fetch implementation (undici) for it: a tenth of the TUI's start. Decoded with Buffer
 * instead, it is handed to Emscripten as `wasmBinary`, which it then instantiates as it would the fetched bytes.
 */
const YOGA_FETCH = 'function ya(){return w||"function"!=typeof fetch?';
const YOGA_DECODE =
  'function ya(){w=w||Buffer.from(H.slice(H.indexOf(",")+1),"base64");return w||"function"!=typeof fetch?';

/** dist/cli/tui.mjs: the TUI with Ink and React in one file. Ink's devtools (development only) are left out. */
async function bundleTui() {
  const esbuild = await import('esbuild');
  const noDevtools = {
    name: 'svc-no-devtools',
    setup(build) {
      build.onResolve({filter: /devtools\.js$/}, (args) =>
        args.importer.includes(`${join('node_modules', 'ink')}`)
          ? {path: 'devtools', namespace: 'svc-empty'}
          : undefined,
      );
      build.onLoad({filter: /.*/, namespace: 'svc-empty'}, () => ({
        contents: 'export default undefined;',
        loader: 'js',
      }));
      build.onLoad(
        {filter: /[\\/]yoga-layout[\\/]dist[\\/]binaries[\\/]yoga-wasm-base64-esm\.js$/},
        (args) => {
          const source = readFileSync(args.path, 'utf8');
          if (!source.includes(YOGA_FETCH))
            return {errors: [{text: `${args.path}: the fetch of the inlined wasm to replace is gone`}]};
          return {contents: source.replace(YOGA_FETCH, YOGA_DECODE), loader: 'js'};
        },
      );
    },
  };
  const result = await esbuild.build({
    entryPoints: [TUI_ENTRY],
    outfile: join(outDir, TUI_BUNDLE),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    minify: true,
    metafile: true,
    logLevel: 'warning',
    plugins: [libraryEntries, noDevtools],
    alias: LIBRARY_SOURCES,
    define: {'process.env.NODE_ENV': '"production"', ...buildSettings()},
    // Some of Ink's dependencies are CommonJS and require() Node's own modules.
    banner: {
      js: "import {createRequire as __svcCreateRequire} from 'node:module'; const require = __svcCreateRequire(import.meta.url);",
    },
  });
  return Object.keys(result.metafile.inputs).length;
}

/** Answers the read routes with the shared fixtures, so the warm-up runs a read command end to end. */
function fixtureServer() {
  const answers = {
    '/v1/org': 'org.json',
    '/v1/api-keys': 'api-keys.json',
    '/v1/webhooks': 'webhooks.json',
  };
  const server = createServer((req, res) => {
    const file = answers[req.url ?? ''];
    res.writeHead(file ? 200 : 404, {'content-type': 'application/json'});
    res.end(
      file
        ? readFileSync(join(root, 'fixtures', 'api', file))
        : '{"error":{"code":"not_found","message":"no"}}',
    );
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/**
 * In a child process: loads the bundle without a cache, runs commands the way users do (help, a read
 * command against fixtures, a signature check), then saves the code cache, which now holds their code.
 */
async function warm() {
  const {loadBundle, bundlePaths, writeCache} = await import(loaderUrl);
  const loaded = await loadBundle({root: rootUrl, noCache: true});
  const server = await fixtureServer();
  const {port} = server.address();
  process.env.SVC_API_URL = `http://127.0.0.1:${port}`;
  process.env.SVC_API_KEY = `svc_${'a'.repeat(40)}`;
  process.env.SVC_CONFIG_DIR = join(outDir, 'warm-config');
  process.env.NO_COLOR = '1';
  const {signPayload} = await import(new URL('dist/src/webhooks/index.js', rootUrl).href);
  const secret = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
  const payload = JSON.stringify({
    id: 'evt_warm',
    type: 'sandbox.ready',
    created_at: '2026-01-01T00:00:00.000Z',
    org_id: 'org_warm',
    data: {sandbox: {id: 'sbx_warm', name: 'web', status: 'running', desired_state: 'running'}},
  });
  process.env.SVC_WEBHOOK_SECRET = secret;
  const payloadFile = join(outDir, 'warm-payload.json');
  writeFileSync(payloadFile, payload);
  const runs = [
    ['keys', 'list', '--json'],
    ['keys', 'list'],
    ['org', '--json'],
    ['keys', 'list', '--help'],
    ['webhooks', 'verify', '--header', signPayload({secret, payload}), '--payload-file', payloadFile],
  ];
  // What the commands say on stderr (a read command names the API it reads) is not the build's to print.
  const stderrWrite = process.stderr.write;
  process.stderr.write = () => true;
  for (const args of runs) {
    try {
      await loaded.bundle.run(root, args);
    } catch {
      // A warm-up that fails still compiled what it reached; the cache is only ever an optimisation.
    }
  }
  process.stderr.write = stderrWrite;
  server.close();
  process.exitCode = 0;
  rmSync(join(outDir, 'warm-config'), {recursive: true, force: true});
  rmSync(payloadFile, {force: true});
  const buildId = readFileSync(bundlePaths(rootUrl).bundle, 'utf8').split('\n')[0].split(' ').at(-1);
  writeCache(loaded.script, bundlePaths(rootUrl).shippedCache(buildId));
}

if (process.argv[2] === '--warm') {
  await warm();
} else {
  const {buildId, modules, bytes} = await bundle();
  await bundleLoader();
  const tuiModules = await bundleTui();
  const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--warm'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const cache = readdirSync(outDir).find((f) => f.endsWith('.v8cache'));
  if (child.status !== 0 || !cache) {
    // Still a working bundle: each run compiles it and keeps a cache in the user's cache dir.
    console.error('bundle-cli: the code cache could not be made; the CLI will build its own on first run');
  }
  console.log(
    `bundle-cli: ${modules} modules, ${(bytes / 1024).toFixed(0)} KiB, build ${buildId}; TUI: ${tuiModules} modules`,
  );
}
