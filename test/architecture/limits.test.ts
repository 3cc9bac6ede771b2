// Every user text that states a limit of the service takes its number from src/definitions.ts (a template of the
// constant), so a limit changed there changes every sentence about it. This reads every text of src/ (string
// literals, the literal parts of templates, JSX text; comments are not texts) and finds a limit's number written
// out beside its unit: there are none, and a new one fails here.
import {readdirSync, readFileSync} from 'node:fs';
import {dirname, join, resolve} from 'node:path';
import {fileURLToPath} from 'node:url';
import ts from 'typescript';
import {describe, expect, it} from 'vitest';
import {
  API_KEY_SECRET_BODY_LENGTH,
  AUTH_FAILURE_LIMIT,
  DELIVERY_TIMEOUT_MS,
  ID_BODY_LENGTH,
  MAX_ACTIVE_KEYS_PER_ORG,
  MAX_DELIVERIES_LISTED,
  MAX_ENDPOINTS_PER_ORG,
  MAX_RELAYS_PER_ORG,
  RESPONSE_BODY_LIMIT_BYTES,
  SIGNATURE_TOLERANCE_SECONDS,
  SIGNING_SECRET_BYTES,
  VAULT_KEY_BYTES,
} from '../../src/definitions.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Each limit, and how a text that writes its number out reads. */
const LIMITS: Record<string, RegExp> = {
  ID_BODY_LENGTH: new RegExp(`\\b${ID_BODY_LENGTH} (letters|base62|characters)`),
  API_KEY_SECRET_BODY_LENGTH: new RegExp(`\\b${API_KEY_SECRET_BODY_LENGTH} (letters|base62|characters)`),
  SIGNING_SECRET_BYTES: new RegExp(`\\b${SIGNING_SECRET_BYTES} (random )?bytes`),
  VAULT_KEY_BYTES: new RegExp(`\\b${VAULT_KEY_BYTES} bytes`),
  MAX_DELIVERIES_LISTED: new RegExp(`\\b${MAX_DELIVERIES_LISTED} (most recent |newest |latest )?deliveries`),
  AUTH_FAILURE_LIMIT: new RegExp(`\\b${AUTH_FAILURE_LIMIT.maxFailures} (failures|failed|wrong|within)`),
  RESPONSE_BODY_LIMIT_BYTES: new RegExp(
    `\\b${RESPONSE_BODY_LIMIT_BYTES / 1024} ?kB\\b|\\b${RESPONSE_BODY_LIMIT_BYTES} bytes`,
    'i',
  ),
  DELIVERY_TIMEOUT_MS: new RegExp(`\\b${DELIVERY_TIMEOUT_MS / 1000} ?(s|seconds)\\b`),
  MAX_ENDPOINTS_PER_ORG: new RegExp(`\\b${MAX_ENDPOINTS_PER_ORG} (webhook )?endpoints`),
  MAX_RELAYS_PER_ORG: new RegExp(`\\b${MAX_RELAYS_PER_ORG} relay`),
  MAX_ACTIVE_KEYS_PER_ORG: new RegExp(`\\b${MAX_ACTIVE_KEYS_PER_ORG} (active )?(API )?keys`),
  SIGNATURE_TOLERANCE_SECONDS: new RegExp(`\\b${SIGNATURE_TOLERANCE_SECONDS} ?(s|seconds)\\b`),
};

/** The texts of a source file: string literals, the literal parts of templates, and JSX text. */
function textsOf(file: string, source: string): string[] {
  const kind = file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, kind);
  const texts: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) return;
    if (
      ts.isStringLiteral(node) ||
      ts.isNoSubstitutionTemplateLiteral(node) ||
      ts.isTemplateLiteralToken(node)
    )
      texts.push(node.text);
    else if (ts.isJsxText(node)) texts.push(node.getText());
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return texts;
}

/** `limit: text` for each text that writes a limit's number out. */
function restated(texts: string[]): string[] {
  return texts.flatMap((text) =>
    Object.entries(LIMITS)
      .filter(([, says]) => says.test(text))
      .map(([name]) => `${name}: ${text}`),
  );
}

function sourceFiles(): string[] {
  return readdirSync(join(ROOT, 'src'), {recursive: true, encoding: 'utf8'})
    .map((name) => `src/${name.split('\\').join('/')}`)
    .filter((file) => /\.tsx?$/.test(file) && !file.endsWith('.d.ts') && !file.includes('/node_modules/'))
    .filter((file) => file !== 'src/definitions.ts' && !file.startsWith('src/definitions/'))
    .sort();
}

describe('limits in user texts', () => {
  it('come from src/definitions.ts, never written out again', () => {
    const files = sourceFiles();
    expect(files.length).toBeGreaterThan(200);
    const restating = files.filter(
      (file) => restated(textsOf(file, readFileSync(join(ROOT, file), 'utf8'))).length > 0,
    );
    expect(restating, 'files whose texts write out a limit of src/definitions.ts').toEqual([]);
  });

  it('finds a limit written out in a text, and not one taken from its constant nor one in a comment', () => {
    // A planted source; `\u007b` is the brace of its templates, so they are no templates of this file.
    const source = [
      "const a = 'ids are we_ and 24 letters or digits';",
      'const b = `answers after 10 s fail, and $\u007bx} more`;',
      '// the 100 most recent deliveries',
      'const c = `the $\u007bMAX_DELIVERIES_LISTED} most recent deliveries`;',
      'const d = <p>first 4 kB shown</p>;',
    ].join('\n');
    expect(restated(textsOf('x.tsx', source))).toEqual([
      'ID_BODY_LENGTH: ids are we_ and 24 letters or digits',
      'DELIVERY_TIMEOUT_MS: answers after 10 s fail, and ',
      'RESPONSE_BODY_LIMIT_BYTES: first 4 kB shown',
    ]);
  });
});
