// What a read command loads: the built CLI (bin/run.js, as users run it) answers `svc keys list --json` from a tiny
// local HTTP server while V8 records which functions ran (NODE_V8_COVERAGE). Each module of the bundle is a
// function named after its file (esbuild's lazy wrappers), so the ones that ran are the modules initialised; the
// scripts outside the bundle that ran are the files loaded. A read must not pay for the emulator, Ink and React,
// the MCP SDK, undici, another command's modules or the schemas it does not parse with.
import {mkdtempSync, readdirSync, readFileSync, rmSync} from 'node:fs';
import {createServer, type Server} from 'node:http';
import type {AddressInfo} from 'node:net';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {fileURLToPath, pathToFileURL} from 'node:url';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {assertFreshBuild} from '../helpers/fresh-build.js';
import {BIN, type CliResult, runProcess} from '../helpers/run-cli.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BUNDLE = pathToFileURL(join(ROOT, 'dist', 'cli', 'bundle.cjs')).href;
const KEYS = readFileSync(join(ROOT, 'fixtures', 'api', 'api-keys.json'));

/** The files of its own a read runs: the entry, the loader and the bundle. Everything else is in the bundle. */
const OWN_FILES = ['bin/run.js', 'dist/cli/loader.cjs', 'dist/cli/bundle.cjs'];

/** Packages only other commands need; some stay out of the bundle, the rest are in it, and a read loads none. */
const NOT_FOR_A_READ = [
  '@electric-sql/pglite',
  '@modelcontextprotocol/sdk',
  '@napi-rs/keyring',
  'hono',
  'ink',
  'react',
  'undici',
  'yaml',
  // oclif's, for what a read never does: globbing plugin folders, templates, spinners, debug output.
  'cli-spinners',
  'debug',
  'ejs',
  'fdir',
  'minimatch',
  'picomatch',
  'tinyglobby',
];

/**
 * Node's own modules a read has no use for, each costing about a millisecond to load: hashing (the code cache is
 * checked with zlib's CRC-32), promise-based files (readline's modules come with them), and DNS (a local API is an
 * address).
 */
const NODE_MODULES_NOT_FOR_A_READ = ['node:crypto', 'node:fs/promises', 'node:dns'];

interface Loaded extends CliResult {
  /** Modules of the bundle initialised, by their path in the project (`src/…`, `node_modules/…`). */
  bundled: string[];
  /** Scripts outside the bundle that ran, relative to the project (`node:` modules left out). */
  files: string[];
  /** Node's own modules that ran (`node:fs`, `node:internal/…`). */
  node: string[];
}

interface Coverage {
  result: {url: string; functions: {functionName: string; ranges: {count: number}[]}[]}[];
}

let server: Server;
let apiUrl: string;
const dirs: string[] = [];

beforeAll(async () => {
  assertFreshBuild();
  server = createServer((req, res) => {
    const found = req.url === '/v1/api-keys';
    res.writeHead(found ? 200 : 404, {'content-type': 'application/json'});
    res.end(found ? KEYS : '{"error":{"code":"not_found","message":"no such route"}}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server?.close();
  for (const dir of dirs) rmSync(dir, {recursive: true, force: true});
});

async function loadedBy(args: string[]): Promise<Loaded> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-modules-'));
  dirs.push(dir);
  const coverage = join(dir, 'coverage');
  const result = await runProcess(process.execPath, [BIN, ...args], {
    env: {
      PATH: process.env.PATH,
      HOME: dir,
      NO_COLOR: '1',
      SVC_CONFIG_DIR: join(dir, 'config'),
      SVC_API_URL: apiUrl,
      SVC_API_KEY: `svc_${'a'.repeat(40)}`,
      NODE_V8_COVERAGE: coverage,
    },
    timeoutMs: 30_000,
  });
  const scripts = readdirSync(coverage).flatMap(
    (file) => (JSON.parse(readFileSync(join(coverage, file), 'utf8')) as Coverage).result,
  );
  const bundle = scripts.find((s) => s.url === BUNDLE);
  expect(bundle, `${BUNDLE} did not run`).toBeDefined();
  const bundled = (bundle?.functions ?? [])
    .filter((f) => /^(src|node_modules)\//.test(f.functionName) && (f.ranges[0]?.count ?? 0) > 0)
    .map((f) => f.functionName);
  const root = pathToFileURL(ROOT).href;
  const files = scripts
    .map((s) => s.url)
    .filter((url) => url.startsWith('file:'))
    .map((url) => (url.startsWith(root) ? url.slice(root.length) : url));
  const node = scripts.map((s) => s.url).filter((url) => url.startsWith('node:'));
  return {
    ...result,
    bundled: [...new Set(bundled)].sort(),
    files: [...new Set(files)].sort(),
    node: [...new Set(node)].sort(),
  };
}

const packageOf = (path: string) => {
  const parts = path.replace(/^.*node_modules\//, '').split('/');
  return parts[0]?.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
};
const packagesIn = (paths: string[]) =>
  [...new Set(paths.filter((p) => p.includes('node_modules/')).map(packageOf))].sort();

describe('the modules a read command loads', () => {
  it('svc keys list --json: its own command, the key schema, and nothing of the emulator, the TUI, MCP or undici', async () => {
    const r = await loadedBy(['keys', 'list', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as {data: unknown[]}).data.length).toBeGreaterThan(0);

    expect(r.files, 'files run outside the bundle').toEqual([...OWN_FILES].sort());
    expect(r.bundled.filter((m) => m.startsWith('src/commands/'))).toEqual(['src/commands/keys/list.ts']);
    // account-page.ts is the two-line rule naming where keys are made (its client import waits for an empty list);
    // reading-from.ts words the note on which API is read, and its emulator lookup (locate, the registry) is loaded
    // only when the note is shown, never with --json.
    expect(r.bundled.filter((m) => m.startsWith('src/services/'))).toEqual([
      'src/services/account-page.ts',
      'src/services/keys/list.ts',
      'src/services/reading-from.ts',
    ]);
    expect(r.bundled.filter((m) => /^src\/(emulator|testing|ui\/tui)\//.test(m))).toEqual([]);
    // zod is loaded to parse the answer, with the one record schema it needs.
    expect(r.bundled.filter((m) => m.startsWith('src/schemas/'))).toEqual([
      'src/schemas/api-key.ts',
      'src/schemas/list.ts',
      'src/schemas/timestamp.ts',
    ]);
    expect(r.bundled.filter((m) => m.includes('/zod/v4/locales/'))).toEqual([
      'node_modules/zod/v4/locales/en.js',
      'node_modules/zod/v4/locales/index.js',
    ]);
    expect(packagesIn([...r.files, ...r.bundled]).filter((p) => NOT_FOR_A_READ.includes(p))).toEqual([]);
    expect(r.node, 'Node loaded none of its own modules (a build without V8 coverage of them?)').toContain(
      'node:http',
    );
    expect(r.node.filter((m) => NODE_MODULES_NOT_FOR_A_READ.includes(m))).toEqual([]);
  });

  it('svc keys list --help: oclif alone, which renders it from the manifest; no command module, no zod', async () => {
    const r = await loadedBy(['keys', 'list', '--help']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('keys list');

    expect(r.files).toEqual([...OWN_FILES].sort());
    expect(r.bundled.some((m) => m.startsWith('node_modules/@oclif/core/lib/help/'))).toBe(true);
    expect(r.bundled.filter((m) => m.startsWith('src/commands/'))).toEqual([]);
    expect(r.bundled.filter((m) => m.startsWith('src/schemas/'))).toEqual([]);
    expect(packagesIn(r.bundled)).not.toContain('zod');
  });
});
