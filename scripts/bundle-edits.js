// What the CLI bundle (scripts/bundle-cli.js) changes in the code it bundles, and in the bundle esbuild makes: each
// change is checked, so that a change upstream fails the build instead of going unnoticed.
import {readFileSync} from 'node:fs';
import {dirname, join} from 'node:path';
import {fileURLToPath} from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * A few changes to what goes into the bundle, each checked so that a change upstream fails the build instead
 * of going unnoticed:
 * - src/cli/commands.ts becomes a list of getters: a command's modules (and zod, for the read commands)
 *   are evaluated when oclif asks for that command, not all of them at every start.
 * - oclif sorts each plugin's commands with localeCompare, and creating ICU's collator costs ~15 ms, a
 *   tenth of Node's own start. For ids of lowercase letters, ':' and '-' the collator's order is the
 *   code-point order (CLDR root puts '-' before ':' before letters), so those are compared directly.
 * - oclif's modules require their packages and each other at the top (a glob library, a template engine, a
 *   spinner, help rendering, debug, child_process for Windows' shell…), and a command's run touches few of
 *   them: those requires become lazy (`__svcLazy`, defined in the banner), each module loaded with its first use;
 *   without DEBUG in the environment its logger does without the debug package (DEBUG_OFF); its WSL check
 *   asks is-wsl alone (IS_WSL); and it reads its JSON files without node:fs/promises (READ_JSON_SYNC).
 * - zod's `z.locales` holds every language's messages (a fifth of the bundle, and each one's module was
 *   evaluated with zod's first use); svc speaks English only and never calls `z.config(z.locales.…)`, so the
 *   namespace keeps English alone, the locale zod sets itself.
 */
const COMMANDS_FILE = join(root, 'src', 'cli', 'commands.ts');

/** Node's modules oclif uses on every run, which Node itself has loaded before any script: kept as they are. */
const EAGER_REQUIRES = new Set(['node:fs', 'node:path', 'node:url', 'node:util']);
/** A top-level `const x_1 = require("pkg")` (or "./file") of tsc's output, bare or in __importDefault/__importStar. */
const TOP_REQUIRE =
  /^(const|var|let) (\w+) = (__importDefault\(|__importStar\()?require\((["'])([^"']+)\4\)(\)?);$/gm;

/** Turns a module's top-level requires into __svcLazy ones (see bundleOnly). */
function lazyRequires(source) {
  return source.replace(TOP_REQUIRE, (line, kind, name, wrap, _quote, id, close) => {
    if (EAGER_REQUIRES.has(id) || Boolean(wrap) !== Boolean(close)) return line;
    return `${kind} ${name} = __svcLazy(() => ${wrap ?? ''}require(${JSON.stringify(id)})${close});`;
  });
}

/**
 * oclif logs through the debug package, which prints only namespaces named in DEBUG (read when it loads; oclif
 * never enables one itself). Without DEBUG every logger is a function that does nothing, and debug, with the
 * terminal and colour probes it loads, is never loaded.
 */
const DEBUG_REQUIRE = 'const debug_1 = __importDefault(require("debug"));';
const DEBUG_OFF =
  'const debug_1 = process.env.DEBUG ? __importDefault(require("debug")) : ' +
  '{default: (namespace) => Object.assign(() => {}, {enabled: false, namespace})};';

/**
 * oclif reads two small JSON files on every run (the manifest, and a theme the user may have) through
 * node:fs/promises, and loading that module (readline's modules come with it) costs more than both reads: they are
 * read synchronously, still inside oclif's async function, so a missing file still rejects its promise.
 */
const READ_JSON_ASYNC = "const contents = await (0, promises_1.readFile)(path, 'utf8');";
const READ_JSON_SYNC = "const contents = (0, node_fs_1.readFileSync)(path, 'utf8');";

/**
 * Every run asks whether it is in WSL, through wsl-utils, which loads child_process and PowerShell's helpers for
 * its other exports; is-wsl, whose answer wsl-utils hands on, is enough.
 */
const WSL_CHECK = "(await import('wsl-utils')).isWsl";
const IS_WSL = "(await import('is-wsl')).default";

/**
 * A stand-in for a module, loaded with its first use: a property read (`(0, x_1.fn)(…)`, `x_1.default`), a
 * call or a `new` (a package that is a function), an assignment or an `in`.
 */
export const LAZY_HELPER =
  'var __svcLazy = (load) => { let m; const real = () => (m ??= load()); return new Proxy(() => {}, {' +
  'get: (_, k) => real()[k], has: (_, k) => k in real(), set: (_, k, v) => { real()[k] = v; return true; }, ' +
  'apply: (_, self, args) => Reflect.apply(real(), self, args), construct: (_, args) => Reflect.construct(real(), args) }); };';
export const bundleOnly = {
  name: 'svc-bundle-only',
  setup(build) {
    build.onLoad({filter: /[\\/]src[\\/]cli[\\/]commands\.ts$/}, (args) => {
      if (args.path !== COMMANDS_FILE) return undefined;
      const source = readFileSync(args.path, 'utf8');
      const modules = new Map(
        [...source.matchAll(/^import (\w+) from '([^']+)';$/gm)].map((m) => [m[1], m[2]]),
      );
      const entries = [...source.matchAll(/^ {2}'?([\w:-]+)'?: (\w+),$/gm)].map((m) => [m[1], m[2]]);
      if (modules.size === 0 || entries.length !== modules.size || entries.some(([, n]) => !modules.has(n))) {
        return {errors: [{text: 'src/cli/commands.ts is no longer one import and one entry per command'}]};
      }
      const getters = entries.map(
        ([id, name]) =>
          `  get ${JSON.stringify(id)}() { return require(${JSON.stringify(modules.get(name))}).default; },`,
      );
      return {contents: `export const COMMANDS = {\n${getters.join('\n')}\n};\n`, loader: 'js'};
    });
    build.onLoad({filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/}, (args) => {
      const source = readFileSync(args.path, 'utf8');
      if (!source.includes('export { default as en } from "./en.js";'))
        return {errors: [{text: `${args.path}: the English locale's export to keep is gone`}]};
      return {contents: 'export { default as en } from "./en.js";\n', loader: 'js'};
    });
    build.onLoad({filter: /[\\/]@oclif[\\/]core[\\/]lib[\\/].*\.js$/}, (args) => {
      let source = readFileSync(args.path, 'utf8');
      if (/[\\/]lib[\\/]logger\.js$/.test(args.path)) {
        if (!source.includes(DEBUG_REQUIRE))
          return {errors: [{text: `${args.path}: the require of debug to replace is gone`}]};
        source = source.replace(DEBUG_REQUIRE, DEBUG_OFF);
      }
      if (/[\\/]lib[\\/]util[\\/]fs\.js$/.test(args.path)) {
        if (!source.includes(READ_JSON_ASYNC))
          return {errors: [{text: `${args.path}: the JSON file read to replace is gone`}]};
        source = source.replace(READ_JSON_ASYNC, READ_JSON_SYNC);
      }
      if (/[\\/]lib[\\/]util[\\/]os\.js$/.test(args.path)) {
        if (!source.includes(WSL_CHECK))
          return {errors: [{text: `${args.path}: the WSL check to replace is gone`}]};
        source = source.replace(WSL_CHECK, IS_WSL);
      }
      source = lazyRequires(source);
      if (!/[\\/]config[\\/]plugin\.js$/.test(args.path)) return {contents: source, loader: 'js'};
      const sort = '.sort((a, b) => a.id.localeCompare(b.id));';
      if (!source.includes(sort))
        return {errors: [{text: `${args.path}: the command sort to replace is gone`}]};
      const compare =
        '.sort((a, b) => /^[a-z:-]*$/.test(a.id) && /^[a-z:-]*$/.test(b.id) ' +
        '? (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) : a.id.localeCompare(b.id));';
      source = source.replace(sort, compare);
      return {contents: source, loader: 'js'};
    });
  },
};

/**
 * V8 keeps a one-byte string half the size, and the loader reads it as latin1 instead of decoding UTF-8.
 * \uXXXX means the same character in strings, regular expressions, identifiers and comments, which is
 * where esbuild leaves the few it does not escape itself.
 */
export function asciiOnly(code) {
  return code.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * svc's modules import a few of Node's modules at their top that a read command never or hardly uses: node:fs/promises
 * (the credentials file, the emulator's runtime file; readline's modules come with it) and node:dns (looked up only
 * for a name that is not `*.localhost`, and a local API is an IP address). esbuild's `import_x = require("node:…")`
 * of each becomes a stand-in that loads the module with its first use (`__svcLazy`, as oclif's requires). Named
 * imports are all esbuild makes of them there (`(0, import_x.readFile)(…)`).
 */
const LAZY_NODE_MODULES = ['node:fs/promises', 'node:dns'];

export function lazyNodeModules(code) {
  let out = code;
  for (const id of LAZY_NODE_MODULES) {
    const plain = new RegExp(`\\b(import_\\w+)=require\\(${JSON.stringify(id).replace('/', '\\/')}\\)`, 'g');
    const next = out.replace(plain, `$1=__svcLazy(()=>require(${JSON.stringify(id)}))`);
    if (next === out) throw new Error(`bundle-cli: no import of ${id} was left to load lazily`);
    out = next;
  }
  return out;
}

/**
 * A script run by vm.Script has no way to import() (Node 20 asks for a flag), so every import() call in
 * the bundle goes through a function the loader passes in. Found with a parser, not a pattern, so that an
 * "import(" inside a string or comment is left alone.
 * Node's own modules (`import('node:http')`, which the HTTP transport loads when it sends its first request)
 * are required instead, as esbuild's namespace of a CommonJS module (`default` is the module): an import()
 * would start Node's ES module loader, which a read command needs for nothing else.
 */
export async function routeDynamicImports(code) {
  const ts = (await import('typescript')).default;
  const file = ts.createSourceFile('bundle.js', code, ts.ScriptTarget.Latest, false, ts.ScriptKind.JS);
  const edits = [];
  const visit = (node) => {
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [specifier] = node.arguments;
      if (
        node.arguments.length === 1 &&
        ts.isStringLiteral(specifier) &&
        specifier.text.startsWith('node:')
      ) {
        const id = JSON.stringify(specifier.text);
        edits.push({
          start: node.getStart(file),
          end: node.getEnd(),
          text: `Promise.resolve().then(() => __toESM(require(${id}), 1))`,
        });
      } else {
        const start = node.expression.getStart(file);
        edits.push({start, end: start + 'import'.length, text: '__svcImport'});
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  if (edits.some((e) => e.text.includes('__toESM')) && !/\bvar __toESM ?=/.test(code))
    throw new Error("bundle-cli: esbuild's __toESM helper, which a required node: module needs, is gone");
  let out = code;
  for (const {start, end, text} of edits.sort((a, b) => b.start - a.start)) {
    out = `${out.slice(0, start)}${text}${out.slice(end)}`;
  }
  return {code: out, count: edits.length};
}
