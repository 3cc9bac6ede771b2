// Which part of the tree may import which: the libraries (the API client, the receiver library, the service's
// definitions) load without the CLI, so their users never get its exit codes, texts or start-up cost.
// Every import of every file is read with TypeScript's own pre-processor (static, re-exports, `import()` and
// `import type` alike) and resolved against the tree; a rule fails with each offending import named.
import {readdirSync, readFileSync, statSync} from 'node:fs';
import {dirname, join, relative, resolve, sep} from 'node:path';
import {fileURLToPath} from 'node:url';
import ts from 'typescript';
import {describe, expect, it} from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

interface ImportRule {
  /** What the rule protects, in words. */
  name: string;
  /** A folder or a file, relative to the project root. */
  files: string;
  /** Folders or files (relative to the root) that nothing in `files` may import. */
  forbidden: string[];
  /** When set, only these packages and node: builtins may be imported from outside the project. */
  packages?: string[];
}

const CLI_SIDE = ['src/auth', 'src/lib', 'src/commands', 'src/services', 'src/ui', 'src/cli'];

const RULES: ImportRule[] = [
  {
    name: 'the API client is a library: nothing of the CLI',
    files: 'src/client',
    forbidden: [...CLI_SIDE, 'emulator'],
  },
  {
    name: 'the receiver library is a library: nothing of the CLI or the client',
    files: 'src/webhooks',
    forbidden: [...CLI_SIDE, 'src/client', 'emulator'],
  },
  {
    name: 'the definitions load nothing',
    files: 'src/definitions.ts',
    forbidden: ['src', 'emulator'],
    packages: [],
  },
];

interface FoundImport {
  file: string;
  specifier: string;
  /** Relative to the root, for imports inside the project; undefined for packages and builtins. */
  target: string | undefined;
}

/** Every module specifier a source text names, static or dynamic. */
function importsOf(source: string): string[] {
  const info = ts.preProcessFile(source, true, true);
  return info.importedFiles.map((f) => f.fileName);
}

function sourceFiles(path: string): string[] {
  const full = join(ROOT, path);
  if (statSync(full).isFile()) return [path];
  return readdirSync(full, {recursive: true, encoding: 'utf8'})
    .filter((name) => /\.tsx?$/.test(name) && !name.endsWith('.d.ts'))
    .map((name) => join(path, name).split(sep).join('/'));
}

function resolveTarget(file: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const target = relative(ROOT, resolve(ROOT, dirname(file), specifier));
  return target.split(sep).join('/').replace(/\.js$/, '');
}

function collect(path: string): FoundImport[] {
  return sourceFiles(path).flatMap((file) =>
    importsOf(readFileSync(join(ROOT, file), 'utf8')).map((specifier) => ({
      file,
      specifier,
      target: resolveTarget(file, specifier),
    })),
  );
}

function isUnder(target: string, folder: string): boolean {
  return target === folder || target.startsWith(`${folder}/`);
}

/** The imports that break a rule, each as `file: 'specifier'` for the failure message. */
function violations(rule: ImportRule, found: FoundImport[]): string[] {
  return found
    .filter((i) => {
      if (i.target !== undefined) return rule.forbidden.some((folder) => isUnder(i.target!, folder));
      if (rule.packages === undefined || i.specifier.startsWith('node:')) return false;
      return !rule.packages.includes(i.specifier);
    })
    .map((i) => `${i.file}: '${i.specifier}'`);
}

describe('import rules', () => {
  for (const rule of RULES) {
    it(rule.name, () => {
      const found = collect(rule.files);
      expect(sourceFiles(rule.files).length).toBeGreaterThan(0);
      expect(violations(rule, found)).toEqual([]);
    });
  }

  it('sees every kind of import, so a rule cannot pass by not looking', () => {
    const source = [
      "import {a} from '../auth/a.js';",
      "import type {B} from '../lib/b.js';",
      "export {c} from '../commands/c.js';",
      "export * from '../ui/d.js';",
      "const e = await import('../services/e.js');",
      "type F = typeof import('../cli/f.js');",
      "import '../lib/side-effect.js';",
      "import {ok} from './fine.js';",
    ].join('\n');
    const found = importsOf(source).map((specifier) => ({
      file: 'src/client/example.ts',
      specifier,
      target: resolveTarget('src/client/example.ts', specifier),
    }));
    expect(violations(RULES[0]!, found)).toEqual([
      "src/client/example.ts: '../auth/a.js'",
      "src/client/example.ts: '../lib/b.js'",
      "src/client/example.ts: '../commands/c.js'",
      "src/client/example.ts: '../ui/d.js'",
      "src/client/example.ts: '../services/e.js'",
      "src/client/example.ts: '../cli/f.js'",
      "src/client/example.ts: '../lib/side-effect.js'",
    ]);
  });

  it('finds the imports the client really has', () => {
    const targets = collect('src/client').map((i) => i.target ?? i.specifier);
    expect(targets).toContain('src/definitions');
    expect(targets).toContain('src/schemas/index');
  });
});
