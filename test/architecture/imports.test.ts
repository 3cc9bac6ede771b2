// Which part of the tree may import which: the libraries (the API client, the receiver library, the service's
// definitions) load without the CLI, so their users never get its exit codes, texts or start-up cost, and the
// emulator stands alone. One table: add a row when a new rule appears.
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
  /** Why it holds, shown when it breaks. */
  why: string;
  /** A folder or a file (or several), relative to the project root. */
  files: string | string[];
  /**
   * What nothing in `files` may import: folders or files of the project (relative to the root), and
   * packages by name (`zod`) or by scheme (`node:`).
   */
  refused: string[];
  /** Files of the project a refused folder still lets in (its front door). */
  allowed?: string[];
}

const CLI_SIDE = ['src/auth', 'src/lib', 'src/commands', 'src/services', 'src/ui', 'src/cli'];

const RULES: ImportRule[] = [
  {
    name: 'the API client is a library',
    why: '@svc/client users get nothing of the CLI: no exit codes, no texts about svc commands, no start-up cost',
    files: 'src/client',
    refused: [...CLI_SIDE, 'src/emulator'],
  },
  {
    name: 'the receiver library is pure',
    why: 'receivers install it on its own; it needs nothing of the CLI, the client or the emulator',
    files: 'src/webhooks',
    refused: [...CLI_SIDE, 'src/client', 'src/emulator', 'zod'],
  },
  {
    name: 'the definitions load nothing',
    why:
      'the receiver library and the CLI start-up import them; they must stay free of dependencies ' +
      '(src/definitions.ts gathers its own modules in src/definitions/, and nothing else)',
    files: ['src/definitions.ts', 'src/definitions'],
    refused: ['src', 'node:', 'zod'],
    allowed: sourceFiles('src/definitions').map((file) => file.replace(/\.ts$/, '')),
  },
  {
    name: 'the id generator is a library',
    why: 'the emulator and the CLI both make ids with it; it needs only the definitions and node:crypto',
    files: 'src/ids.ts',
    refused: [...CLI_SIDE, 'src/client', 'src/schemas', 'src/emulator', 'zod'],
  },
  {
    name: 'the exit hook stands on Node alone',
    why:
      'the emulator (its data dir), the testing entry and the scenario runner (its receivers) each leave nothing ' +
      'behind through src/at-exit.ts, however the process ends: it imports nothing of the project',
    files: 'src/at-exit.ts',
    refused: ['src', 'zod'],
  },
  {
    name: 'the delivery poster is a library',
    why:
      'the emulator, svc listen and svc webhooks send all post a delivery through src/deliver.ts: it stands on ' +
      'the definitions only, so each takes it without the others (the transport is passed in)',
    files: 'src/deliver.ts',
    refused: [...CLI_SIDE, 'src/client', 'src/schemas', 'src/emulator', 'src/webhooks', 'zod'],
  },
  {
    name: "the emulator's files on disk are a library",
    why:
      'the emulator writes its runtime file and database folder, and the CLI and @svc/client read them, each ' +
      'through its own copy of src/emulator-layout: it stands on Node alone, so every package can carry it',
    files: 'src/emulator-layout',
    refused: [...CLI_SIDE, 'src/client', 'src/webhooks', 'src/emulator', 'src/testing', 'src/schemas', 'zod'],
  },
  {
    name: 'the emulator stands on the libraries only',
    why:
      'the emulator may use the libraries below it (src/definitions, src/schemas, the receiver library and the ' +
      'client, which its entry hands out for its own control surface), never the CLI above it',
    files: 'src/emulator',
    refused: CLI_SIDE,
  },
  {
    name: 'the testing entry stands on the emulator and the libraries',
    why:
      'test suites import @svc/cli/testing without the CLI: it starts the emulator through its library entry and ' +
      'talks to it through the control client, and nothing in the emulator or the libraries knows of it',
    files: 'src/testing',
    refused: CLI_SIDE,
  },
  {
    name: 'the testing entry enters the emulator through its one door',
    why:
      '@svc/cli/testing is a user of the emulator like any other: it takes what it needs from src/emulator/index.ts ' +
      "(the package's entry), so the emulator's inner files can move without the testing entry noticing",
    files: 'src/testing',
    refused: ['src/emulator'],
    allowed: ['src/emulator/index'],
  },
  {
    name: 'the scenario runner stands on the libraries',
    why:
      '`svc scenario run` and @svc/cli/testing (runScenario) both run scenario files with it: it talks to any ' +
      'emulator through the control client and the API client, so it takes nothing of the CLI, of the testing ' +
      'entry or of the emulator inside',
    files: 'src/scenario',
    refused: [...CLI_SIDE, 'src/testing', 'src/emulator'],
  },
  {
    name: 'screens read through the client',
    why:
      'what src/ui shows comes through the typed clients (records from src/schemas), never from the ' +
      "emulator's own files; and the screens sit below the commands that use them",
    files: 'src/ui',
    refused: ['src/emulator', 'src/commands', 'src/cli'],
  },
  {
    name: "the CLI's plumbing loads nothing above it",
    why:
      'every command loads src/lib (error rendering, output, flags): it must not pull in the emulator, a ' +
      'service, a screen or a command',
    files: 'src/lib',
    refused: ['src/emulator', 'src/services', 'src/commands', 'src/ui', 'src/cli'],
  },
  {
    name: 'the CLI enters the emulator through its one door',
    why:
      "the CLI reaches the emulator only through src/emulator/index.ts (the package's entry): what it needs from " +
      'inside lives below the emulator (the chaos spec in src/schemas, the runtime file and database folder in ' +
      "src/emulator-layout) or is exported there, so the emulator's inner files can move without the CLI noticing",
    files: CLI_SIDE,
    refused: ['src/emulator'],
    allowed: ['src/emulator/index'],
  },
  {
    name: 'commands and screens reach neither the credentials nor the client',
    why:
      'a command opens its session through BaseCommand.session() and hands the client to a service; a screen ' +
      'draws the records it is given (their types from src/schemas): neither builds a client, resolves a key or ' +
      'reaches into @svc/client, so one session serves a command and its output has one way out',
    files: ['src/commands', 'src/ui'],
    refused: ['src/auth', 'src/client'],
  },
  {
    name: 'services never open a session',
    why:
      'a service takes the client (or the session) its command opened and opens none of its own, so a command ' +
      'uses one session, opened once from its env and --api-url',
    files: 'src/services',
    refused: ['src/auth/session'],
  },
  {
    name: 'services never reach up to the screens or the commands',
    why:
      'a service does the work for a command and never sees flags, oclif or a screen: commands call services and ' +
      'show what they return (or hand in the screen a long run reports to), never the other way round',
    files: 'src/services',
    refused: ['src/ui', 'src/commands', 'src/cli'],
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

/** The library packages built from folders of this tree: an import by name lands in that folder. */
const LIBRARY_PACKAGES: Record<string, string> = {
  '@svc/client': 'src/client',
  '@svc/webhooks': 'src/webhooks',
};

function libraryTarget(specifier: string): string | undefined {
  for (const [name, folder] of Object.entries(LIBRARY_PACKAGES)) {
    if (specifier === name) return `${folder}/index`;
    if (specifier.startsWith(`${name}/`)) return `${folder}/${specifier.slice(name.length + 1)}`;
  }
  return undefined;
}

function resolveTarget(file: string, specifier: string): string | undefined {
  const library = libraryTarget(specifier);
  if (library !== undefined) return library;
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

function refuses(refused: string, i: FoundImport): boolean {
  if (i.target !== undefined) return i.target === refused || i.target.startsWith(`${refused}/`);
  if (refused.endsWith(':')) return i.specifier.startsWith(refused);
  return i.specifier === refused || i.specifier.startsWith(`${refused}/`);
}

/** The imports that break a rule, each as `file: 'specifier'` for the failure message. */
function violations(rule: ImportRule, found: FoundImport[]): string[] {
  return found
    .filter((i) => rule.refused.some((refused) => refuses(refused, i)))
    .filter((i) => !(i.target !== undefined && rule.allowed?.includes(i.target)))
    .map((i) => `${i.file}: '${i.specifier}'`);
}

/**
 * Which part of `root` imports which, one level down: each sub-folder is one node (`delivery/`, everything under
 * it), and each file directly in `root` is a node of its own (`context`). A file at the root counts, so an import
 * that runs back up is seen: a file of a sub-folder importing a root file that itself imports into that sub-folder
 * closes the loop `delivery/ -> context -> delivery/`.
 */
function levelArrows(root: string, found: FoundImport[] = collect(root)): Map<string, Set<string>> {
  const nodeOf = (path: string) => {
    const rest = path.slice(root.length + 1).split('/');
    return rest.length > 1 ? `${rest[0]}/` : (rest[0] as string).replace(/\.tsx?$/, '');
  };
  const arrows = new Map<string, Set<string>>();
  for (const i of found) {
    if (!i.file.startsWith(`${root}/`) || !i.target?.startsWith(`${root}/`)) continue;
    const from = nodeOf(i.file);
    const to = nodeOf(i.target);
    if (from === to) continue;
    if (!arrows.has(from)) arrows.set(from, new Set());
    arrows.get(from)?.add(to);
  }
  return arrows;
}

/** `root` and every folder under it that holds source files, relative to the project root. */
function foldersOf(root: string): string[] {
  const folders = new Set([root]);
  for (const file of sourceFiles(root)) {
    for (let dir = dirname(file); dir.length > root.length; dir = dirname(dir)) folders.add(dir);
  }
  return [...folders].sort();
}

/** Each cycle of folder arrows once, as `a -> b -> a`, starting from its first folder in name order. */
function cyclesOf(arrows: Map<string, Set<string>>): string[] {
  const found = new Set<string>();
  const walk = (path: string[]) => {
    const last = path[path.length - 1] as string;
    for (const next of arrows.get(last) ?? []) {
      if (next === path[0]) {
        const loop = [...path];
        const start = loop.indexOf([...loop].sort()[0] as string);
        const turned = [...loop.slice(start), ...loop.slice(0, start)];
        found.add([...turned, turned[0]].join(' -> '));
      } else if (!path.includes(next)) walk([...path, next]);
    }
  };
  for (const folder of arrows.keys()) walk([folder]);
  return [...found].sort();
}

/** Which file of `root` imports which (type imports too), keyed by path without extension. */
function fileArrows(root: string): Map<string, Set<string>> {
  const arrows = new Map<string, Set<string>>();
  for (const i of collect(root)) {
    const from = i.file.replace(/\.tsx?$/, '');
    if (!arrows.has(from)) arrows.set(from, new Set());
    if (i.target?.startsWith(`${root}/`)) arrows.get(from)?.add(i.target);
  }
  return arrows;
}

/** The groups of files that import each other round a loop (strongly connected, more than one file), sorted. */
function loopsOf(arrows: Map<string, Set<string>>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const loops: string[][] = [];
  const visit = (node: string) => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of arrows.get(node) ?? []) {
      if (!arrows.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) as number, low.get(next) as number));
      } else if (onStack.has(next))
        low.set(node, Math.min(low.get(node) as number, index.get(next) as number));
    }
    if (low.get(node) !== index.get(node)) return;
    const group: string[] = [];
    for (;;) {
      const member = stack.pop() as string;
      onStack.delete(member);
      group.push(member);
      if (member === node) break;
    }
    if (group.length > 1) loops.push(group.sort());
  };
  for (const node of [...arrows.keys()].sort()) if (!index.has(node)) visit(node);
  return loops.sort((a, b) => (a[0] as string).localeCompare(b[0] as string));
}

describe('import rules', () => {
  for (const rule of RULES) {
    it(rule.name, () => {
      const paths = [rule.files].flat();
      const found = paths.flatMap(collect);
      expect(paths.flatMap(sourceFiles).length).toBeGreaterThan(0);
      expect(violations(rule, found), rule.why).toEqual([]);
    });
  }

  it('enters the libraries only by their package names, as their users do', () => {
    const byPath = (found: FoundImport[]) =>
      found
        .filter((i) => i.specifier.startsWith('.'))
        .filter((i) => Object.values(LIBRARY_PACKAGES).some((folder) => i.target?.startsWith(`${folder}/`)))
        .filter((i) => !Object.values(LIBRARY_PACKAGES).some((folder) => i.file.startsWith(`${folder}/`)))
        .map((i) => `${i.file}: '${i.specifier}'`);
    const all = collect('src');
    expect(all.filter((i) => i.specifier === '@svc/client').length).toBeGreaterThan(10);
    expect(byPath(all), 'import @svc/client or @svc/webhooks instead: one copy of their classes').toEqual([]);
    const planted = ["import {ApiError} from '../client/errors.js';", "import {x} from '@svc/client';"]
      .flatMap((line) => importsOf(line))
      .map((specifier) => ({
        file: 'src/lib/x.ts',
        specifier,
        target: resolveTarget('src/lib/x.ts', specifier),
      }));
    expect(byPath(planted)).toEqual(["src/lib/x.ts: '../client/errors.js'"]);
  });

  it("keeps the emulator's parts free of cycles at every level, so each stands on the ones below it", () => {
    const found = collect('src/emulator');
    const cycles = foldersOf('src/emulator').flatMap((folder) =>
      cyclesOf(levelArrows(folder, found)).map((cycle) => `${folder}: ${cycle}`),
    );
    expect(levelArrows('src/emulator', found).size).toBeGreaterThan(10);
    expect(foldersOf('src/emulator')).toContain('src/emulator/web/db');
    expect(
      cycles,
      'imports that close a loop between the folders and root files of a folder of src/emulator/',
    ).toEqual([]);
  });

  it('keeps the folders and root files of src/ free of cycles, so the floors (libraries, emulator, CLI) each stand on the ones below', () => {
    const arrows = levelArrows('src');
    expect(arrows.size).toBeGreaterThan(6);
    expect(cyclesOf(arrows), 'an import that closes a loop between folders and root files of src/').toEqual(
      [],
    );
  });

  it('keeps every file of src/ out of import loops, so each can be read and tested on the ones below it', () => {
    const arrows = fileArrows('src');
    expect(arrows.size).toBeGreaterThan(200);
    expect(loopsOf(arrows), 'files that import each other, directly or round a loop').toEqual([]);
  });

  it('finds a loop between files when there is one, type imports included', () => {
    const arrows = new Map([
      ['src/a', new Set(['src/b'])],
      ['src/b', new Set(['src/c'])],
      ['src/c', new Set(['src/a'])],
      ['src/d', new Set(['src/a', 'src/e'])],
      ['src/e', new Set(['src/d'])],
      ['src/f', new Set(['src/a'])],
    ]);
    expect(loopsOf(arrows)).toEqual([
      ['src/a', 'src/b', 'src/c'],
      ['src/d', 'src/e'],
    ]);
    const typeOnly = "import type {X} from './b.js';";
    expect(importsOf(typeOnly)).toEqual(['./b.js']);
  });

  it('finds a cycle between folders when there is one', () => {
    const arrows = new Map([
      ['db', new Set(['delivery'])],
      ['delivery', new Set(['net'])],
      ['net', new Set(['db'])],
      ['ops', new Set(['db'])],
    ]);
    expect(cyclesOf(arrows)).toEqual(['db -> delivery -> net -> db']);
    expect(cyclesOf(new Map([['ops', new Set(['db'])]]))).toEqual([]);
  });

  it('finds a cycle that runs back up through a file at the root of a folder', () => {
    const planted = [
      ['src/emulator/delivery/plugin.ts', '../context.js'],
      ['src/emulator/context.ts', './delivery/engine.js'],
      ['src/emulator/context.ts', './clock.js'],
      ['src/emulator/db/orgs.ts', '../clock.js'],
      ['src/emulator/web/db/persons.ts', '../page-kit.js'],
      ['src/emulator/web/page-kit.ts', './db/sessions.js'],
    ].map(([file, specifier]) => ({
      file: file as string,
      specifier: specifier as string,
      target: resolveTarget(file as string, specifier as string),
    }));
    expect(cyclesOf(levelArrows('src/emulator', planted))).toEqual(['context -> delivery/ -> context']);
    expect(cyclesOf(levelArrows('src/emulator/web', planted))).toEqual(['db/ -> page-kit -> db/']);
    expect(cyclesOf(levelArrows('src/emulator', planted.slice(2)))).toEqual([]);
  });

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

  it("refuses a CLI file that walks past the emulator's door, and lets the door itself in", () => {
    const rule = RULES.find((r) => r.name === 'the CLI enters the emulator through its one door')!;
    const file = 'src/commands/emulator/webhooks/chaos.ts';
    const found = [
      "import {describeChaos} from '../../../emulator/delivery/chaos.js';",
      "const {startEmulator} = await import('../../../emulator/index.js');",
      "import {describeChaos as d} from '../../../schemas/chaos.js';",
    ]
      .flatMap((line) => importsOf(line))
      .map((specifier) => ({file, specifier, target: resolveTarget(file, specifier)}));
    expect(violations(rule, found)).toEqual([`${file}: '../../../emulator/delivery/chaos.js'`]);
  });

  it('refuses packages by name and by scheme, not by a name they merely start with', () => {
    const found = ["import {z} from 'zod';", "import {x} from 'zod-extra';", "import {a} from 'node:fs';"]
      .flatMap((line) => importsOf(line))
      .map((specifier) => ({file: 'src/definitions.ts', specifier, target: undefined}));
    const rule = RULES.find((r) => r.name === 'the definitions load nothing')!;
    expect(violations(rule, found)).toEqual(["src/definitions.ts: 'zod'", "src/definitions.ts: 'node:fs'"]);
  });

  it('finds the imports the tree really has', () => {
    const client = collect('src/client').map((i) => i.target ?? i.specifier);
    expect(client).toContain('src/definitions');
    expect(client).toContain('src/schemas/index');
    expect(collect('src/ids.ts').map((i) => i.target)).toContain('src/definitions');
    expect(collect('src/emulator/ids.ts').map((i) => i.target)).toContain('src/ids');
  });
});
