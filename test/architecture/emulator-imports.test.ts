// The import rules that keep the emulator and the service's definitions standing alone: read from the source,
// so a new import across a line fails here with the file and the import named.
import {readdirSync, readFileSync} from 'node:fs';
import {dirname, join, relative, resolve} from 'node:path';
import {fileURLToPath} from 'node:url';
import {describe, expect, it} from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), {withFileTypes: true, recursive: true})
    .filter((e) => e.isFile() && /\.(ts|tsx)$/.test(e.name) && !e.name.endsWith('.d.ts'))
    .map((e) => relative(root, join(e.parentPath, e.name)));
}

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^'";]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** Every module a file imports: repository-relative paths for relative imports, package names otherwise. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(IMPORT)) {
    const spec = (m[1] ?? m[2]) as string;
    out.push(spec.startsWith('.') ? relative(root, resolve(root, dirname(file), spec)) : spec);
  }
  return out;
}

interface Rule {
  files: string[];
  /** Imports that start with any of these are refused. */
  refused: string[];
  why: string;
}

const RULES: Record<string, Rule> = {
  'the emulator stands alone': {
    files: sourceFiles('emulator'),
    refused: ['src/lib', 'src/services', 'src/auth', 'src/commands', 'src/ui', 'src/cli', 'src/client'],
    why: 'the emulator may use src/definitions, src/schemas and the receiver library only',
  },
  'the definitions load nothing': {
    files: ['src/definitions.ts'],
    refused: ['src/', 'emulator/', 'node:', 'zod'],
    why: 'the receiver library and the CLI start-up import it; it must stay free of dependencies',
  },
  'the receiver library is pure': {
    files: sourceFiles('src/webhooks'),
    refused: [
      'src/lib',
      'src/services',
      'src/auth',
      'src/commands',
      'src/ui',
      'src/cli',
      'src/client',
      'emulator/',
      'zod',
    ],
    why: 'receivers install it on its own; it needs nothing of the CLI or the emulator',
  },
};

describe('import rules', () => {
  for (const [name, rule] of Object.entries(RULES)) {
    it(name, () => {
      expect(rule.files.length).toBeGreaterThan(0);
      const broken = rule.files.flatMap((file) =>
        importsOf(file)
          .filter((target) => rule.refused.some((prefix) => target.startsWith(prefix)))
          .map((target) => `${file} imports ${target}`),
      );
      expect(broken, rule.why).toEqual([]);
    });
  }

  it('reads the imports it checks (a file known to import src/definitions is seen doing so)', () => {
    expect(importsOf('emulator/ids.ts')).toContain('src/definitions.js');
  });
});
