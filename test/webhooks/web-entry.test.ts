// svc/webhooks/web must load on runtimes without node:crypto: nothing it imports may import node:*.
import {readFileSync} from 'node:fs';
import {dirname, join, resolve} from 'node:path';
import {fileURLToPath} from 'node:url';
import {describe, expect, it} from 'vitest';
import * as web from '../../src/webhooks/web.js';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src/webhooks');
/** The service's definitions: a local module that itself imports nothing (its own imports are followed too). */
const DEFINITIONS = resolve(SRC, '../definitions.ts');

/** Runtime imports only: `import type` and `export type` vanish from the compiled output. */
function runtimeImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers: string[] = [];
  for (const match of text.matchAll(/^(?:import|export)\s+(?!type\b)[^;]*?from\s+'([^']+)'/gms)) {
    specifiers.push(match[1]!);
  }
  return specifiers;
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

describe('svc/webhooks/web', () => {
  it('imports nothing from node:* or any package, directly or through its modules', () => {
    const modules = [...graph(join(SRC, 'web.ts'))];
    expect(modules.filter((m) => !m.startsWith(SRC) && m !== DEFINITIONS)).toEqual([]);
    expect(modules.length).toBeGreaterThan(4);
  });

  it('the full entry does pull node:crypto, which is why the web entry exists', () => {
    expect([...graph(join(SRC, 'index.ts'))]).toContain('node:crypto');
  });

  it('offers the async verifier and the helpers, not the node:crypto ones', () => {
    expect(typeof web.verifySignatureAsync).toBe('function');
    expect(typeof web.constructEventAsync).toBe('function');
    expect(typeof web.EventDeduplicator).toBe('function');
    expect('verifySignature' in web).toBe(false);
  });
});
