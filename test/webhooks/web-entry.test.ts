// @svc/webhooks/web must load on runtimes without node:crypto: nothing it imports may import node:*.
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {dirname, join, resolve} from 'node:path';
import {fileURLToPath} from 'node:url';
import ts from 'typescript';
import {describe, expect, it} from 'vitest';
import * as web from '../../src/webhooks/web.js';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src/webhooks');
/**
 * The service's definitions: a local module that imports nothing but its own modules in definitions/, which
 * import nothing (their imports are followed too).
 */
const DEFINITIONS = resolve(SRC, '../definitions.ts');
const DEFINITION_MODULES = `${resolve(SRC, '../definitions')}/`;

/**
 * Every module a file loads at run time, as the compiler sees it: static imports and re-exports, side-effect
 * imports (`import './x.js'`) and `import()`, once the TypeScript-only ones (`import type`, unused names) are
 * compiled away.
 */
function runtimeImports(file: string): string[] {
  const js = ts.transpileModule(readFileSync(file, 'utf8'), {
    compilerOptions: {
      module: ts.ModuleKind.ESNext,
      target: ts.ScriptTarget.ES2022,
      verbatimModuleSyntax: false,
    },
    fileName: file,
  }).outputText;
  return ts.preProcessFile(js, true, true).importedFiles.map((f) => f.fileName);
}

function graph(entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const spec of runtimeImports(file)) {
      if (spec.startsWith('.')) visit(join(dirname(file), spec.replace(/\.js$/, '.ts')));
      else seen.add(spec);
    }
  };
  visit(entry);
  return seen;
}

describe('@svc/webhooks/web', () => {
  it('imports nothing from node:* or any package, directly or through its modules', () => {
    const modules = [...graph(join(SRC, 'web.ts'))];
    expect(
      modules.filter((m) => !m.startsWith(SRC) && m !== DEFINITIONS && !m.startsWith(DEFINITION_MODULES)),
    ).toEqual([]);
    expect(modules.length).toBeGreaterThan(4);
  });

  it('the full entry does pull node:crypto, which is why the web entry exists', () => {
    expect([...graph(join(SRC, 'index.ts'))]).toContain('node:crypto');
  });

  it('sees every way a module can load another, and none of the type-only ones', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-web-entry-'));
    try {
      const file = join(dir, 'probe.ts');
      writeFileSync(
        file,
        [
          "import type {Server} from 'node:http';",
          "import {type Agent} from 'node:https';",
          "import {createHash} from 'node:crypto';",
          "import 'node:fs';",
          "export {join} from 'node:path';",
          "export * from 'node:util';",
          "export const load = () => import('node:zlib');",
          'export const hash = (s: Server, a: Agent) => createHash(String(s) + String(a));',
        ].join('\n'),
      );
      expect(runtimeImports(file).sort()).toEqual([
        'node:crypto',
        'node:fs',
        'node:path',
        'node:util',
        'node:zlib',
      ]);
    } finally {
      rmSync(dir, {recursive: true, force: true});
    }
  });

  it('offers the async verifier and the helpers, not the node:crypto ones', () => {
    expect(typeof web.verifySignatureAsync).toBe('function');
    expect(typeof web.constructEventAsync).toBe('function');
    expect(typeof web.EventDeduplicator).toBe('function');
    expect('verifySignature' in web).toBe(false);
  });
});
