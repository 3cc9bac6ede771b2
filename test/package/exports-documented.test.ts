// Every published entry point exports exactly the names its package's README lists, types included: a name
// exported and not listed would be a promise nobody meant to make, a name listed and not exported a promise
// broken. The entries are every path of the three packages' "exports" (but the JSON files).
//
// How a README lists them: a heading naming the entry in backticks (`### \`@svc/webhooks/node\``) opens its
// list, a table whose first cell holds names in backticks (`| \`createClient(options)\`, \`SvcClient\` |`,
// a call's arguments left out); a first cell `all of \`<entry>\`` takes every name listed for that entry.
// Other backticked words in a first cell (paths, package names) are no names. A heading ends the section.
//
// An entry's names are read twice, from its source: by TypeScript (every name, types too), which must equal
// the README's list, and by importing it (the values), which must all be among them.
import {readFileSync} from 'node:fs';
import {join} from 'node:path';
import {fileURLToPath} from 'node:url';
import ts from 'typescript';
import {beforeAll, describe, expect, it} from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface Manifest {
  name: string;
  exports: Record<string, string | {types?: string; import?: {types?: string}}>;
}

/** The three packages of this tree, each with its folder (relative to the root). */
const PACKAGES = ['', 'src/webhooks/', 'src/client/'];

interface Entry {
  /** As users import it: `@svc/webhooks/node`. */
  name: string;
  /** Its source file, relative to the root. */
  source: string;
  /** The README that lists its names, relative to the root. */
  readme: string;
}

/** Every entry point of every package, with the source its types are built from. */
function entries(): Entry[] {
  return PACKAGES.flatMap((dir) => {
    const pkg = JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')) as Manifest;
    return Object.entries(pkg.exports)
      .filter(([path]) => !path.endsWith('.json'))
      .map(([path, target]) => {
        const types = typeof target === 'object' ? (target.types ?? target.import?.types) : undefined;
        if (!types) throw new Error(`${pkg.name}: the entry ${path} names no types file`);
        return {
          name: path === '.' ? pkg.name : `${pkg.name}/${path.slice(2)}`,
          source: `${dir}${types.replace(/^\.\/dist\//, '').replace(/\.d\.ts$/, '.ts')}`,
          readme: `${dir}README.md`,
        };
      });
  });
}

/**
 * The names a README lists, by entry. `all of` rows are kept as references (`…@svc/cli/testing`) for
 * `expand` to resolve once every section of the README is read.
 */
function documentedNames(markdown: string): Map<string, string[]> {
  const sections = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of markdown.split('\n')) {
    if (/^#{1,6} /.test(line)) {
      const named = [...line.matchAll(/`(@[\w.-]+\/[\w./-]+)`/g)].map((m) => m[1] as string);
      current = named.length === 1 ? [] : undefined;
      if (current) {
        if (sections.has(named[0] as string)) throw new Error(`two sections list ${named[0]}`);
        sections.set(named[0] as string, current);
      }
      continue;
    }
    if (!current || !line.startsWith('|')) continue;
    const first = (line.split('|')[1] ?? '').trim();
    if (first === 'name' || /^:?-+:?$/.test(first)) continue; // the table's head
    const all = /^all of `(@[^`]+)`$/.exec(first);
    if (all) current.push(`…${all[1]}`);
    else
      current.push(...[...first.matchAll(/`([A-Za-z_$][\w$]*)(?:\([^`]*\))?`/g)].map((m) => m[1] as string));
  }
  return sections;
}

/** Each entry's names with every `all of` row replaced by the names of the entry it names. */
function expand(sections: Map<string, string[]>): Map<string, string[]> {
  const resolve = (entry: string, seen: string[]): string[] => {
    if (seen.includes(entry))
      throw new Error(`the sections refer to each other: ${[...seen, entry].join(' -> ')}`);
    const names = sections.get(entry);
    if (!names) throw new Error(`\`all of \`${entry}\`\`: no section lists ${entry}`);
    return names.flatMap((n) => (n.startsWith('…') ? resolve(n.slice(1), [...seen, entry]) : [n]));
  };
  return new Map([...sections.keys()].map((entry) => [entry, resolve(entry, [])]));
}

/** Every name each source file exports, types included, as the compiler sees it with the tree's own settings. */
function declaredNames(sources: string[]): Map<string, string[]> {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, 'tsconfig.json'),
    {noEmit: true},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  if (!config) throw new Error('tsconfig.json could not be read');
  const files = sources.map((s) => join(ROOT, s));
  const program = ts.createProgram(files, {...config.options, incremental: false, noEmit: true});
  const checker = program.getTypeChecker();
  return new Map(
    sources.map((source, i) => {
      const file = program.getSourceFile(files[i] as string);
      const module = file && checker.getSymbolAtLocation(file);
      if (!module) throw new Error(`${source}: no module for the compiler`);
      return [source, checker.getExportsOfModule(module).map((s) => s.name)];
    }),
  );
}

const sorted = (names: Iterable<string>) => [...new Set(names)].sort();

/**
 * Names an entry still exports though no README lists them, each waiting for its move out of the entry: once
 * one is gone from the entry, the test fails until it leaves this list too.
 */
const NOT_YET_GONE: Record<string, string[]> = {};

describe('each entry point exports exactly what its README lists', () => {
  const ENTRIES = entries();
  const documented = new Map<string, string[]>();
  let declared: Map<string, string[]>;

  beforeAll(() => {
    for (const readme of new Set(ENTRIES.map((e) => e.readme))) {
      for (const [entry, names] of expand(documentedNames(readFileSync(join(ROOT, readme), 'utf8')))) {
        documented.set(entry, names);
      }
    }
    declared = declaredNames(ENTRIES.map((e) => e.source));
  }, 60_000);

  it('finds every entry point of the three packages, and a README section for each and for nothing else', () => {
    expect(ENTRIES.map((e) => e.name)).toEqual(
      expect.arrayContaining(['@svc/client', '@svc/webhooks', '@svc/webhooks/web', '@svc/cli/emulator']),
    );
    expect(ENTRIES.length).toBeGreaterThanOrEqual(10);
    expect(sorted(documented.keys())).toEqual(sorted(ENTRIES.map((e) => e.name)));
  });

  it.each(ENTRIES.map((e) => [e.name, e] as const))('%s', async (name, entry) => {
    const pending = NOT_YET_GONE[name] ?? [];
    const exported = declared.get(entry.source) ?? [];
    const listed = documented.get(name) ?? [];
    expect(listed.length, `${entry.readme} lists no name for ${name}`).toBeGreaterThan(0);
    expect(
      sorted(listed).filter((n) => pending.includes(n)),
      'listed, so no longer waiting to go',
    ).toEqual([]);
    expect(
      sorted(pending).filter((n) => !exported.includes(n)),
      `gone: take them out of NOT_YET_GONE`,
    ).toEqual([]);
    expect(
      sorted(exported.filter((n) => !pending.includes(n))),
      `what ${entry.source} exports, against what ${entry.readme} lists for ${name}`,
    ).toEqual(sorted(listed));
    const values = Object.keys(await import(join(ROOT, entry.source)));
    expect(values.length).toBeGreaterThan(0);
    expect(
      values.filter((n) => !exported.includes(n)),
      'exported at run time, unseen by the compiler',
    ).toEqual([]);
  });

  it('reads a README as the convention says', () => {
    const text = [
      '# pkg',
      'Prose with `createClient` is not a list.',
      '## Everything `@svc/x` exports',
      '| name | what it is |',
      '| --- | --- |',
      '| `createClient(options)`, `SvcClient` | the client; see `README.md` and `@svc/y` |',
      '| `src/x.ts` | a path is no name |',
      '| `default` | the default export |',
      '### `@svc/x/sub`',
      '| name | what it is |',
      '| :-- | --- |',
      '| all of `@svc/x` | |',
      '| `extra` | one more |',
      '## Next heading with `@svc/x` and `@svc/y` opens no section',
      '| `ignored` | |',
    ].join('\n');
    const sections = documentedNames(text);
    expect(Object.fromEntries(sections)).toEqual({
      '@svc/x': ['createClient', 'SvcClient', 'default'],
      '@svc/x/sub': ['…@svc/x', 'extra'],
    });
    expect(expand(sections).get('@svc/x/sub')).toEqual(['createClient', 'SvcClient', 'default', 'extra']);
    expect(() => expand(new Map([['@svc/a', ['…@svc/b']]]))).toThrow(/no section lists @svc\/b/);
  });
});
