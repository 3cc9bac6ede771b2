// The exit codes scripts branch on are defined once (src/lib/exit-codes.ts) and printed in docs/cli.md: the docs'
// table is the code's table, row for row, so neither changes without the other.
import {readFileSync} from 'node:fs';
import {describe, expect, it} from 'vitest';
import {EXIT_CODE_TABLE, ExitCode} from '../../src/lib/exit-codes.js';

const DOCS = new URL('../../docs/cli.md', import.meta.url);

/** The table's rows as docs/cli.md writes them. */
function markdownRows(): string[] {
  return EXIT_CODE_TABLE.map(
    (row) =>
      `| ${row.code} | ${row.situation} | ${row.when} | ${row.errorCodes.map((c) => (c === '…' ? c : `\`${c}\``)).join(', ') || '-'} |`,
  );
}

/** The rows of the table under the "## Exit codes" heading of docs/cli.md. */
function docsRows(): string[] {
  const text = readFileSync(DOCS, 'utf8');
  const section = text.split(/^## /m).find((s) => s.startsWith('Exit codes\n'));
  expect(section, 'docs/cli.md has a "## Exit codes" section').toBeDefined();
  return (section as string)
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('| Exit |') && !line.startsWith('| ---'));
}

describe('the exit-code table', () => {
  it('in docs/cli.md is the one in src/lib/exit-codes.ts', () => {
    expect(docsRows().join('\n')).toBe(markdownRows().join('\n'));
  });

  it('names each situation once, and gives every failure of the contract a row', () => {
    const situations = EXIT_CODE_TABLE.map((r) => r.situation);
    expect(new Set(situations).size).toBe(situations.length);
    expect(situations).toEqual(
      expect.arrayContaining(['usage', 'no emulator', 'not found', 'refused: authentication']),
    );
    const codes = new Set(EXIT_CODE_TABLE.map((r) => r.code));
    for (const code of [ExitCode.ok, ExitCode.error, ExitCode.usage, ExitCode.notRunning]) {
      expect(codes.has(code)).toBe(true);
    }
    expect(codes.has(ExitCode.unauthorized) && codes.has(ExitCode.forbidden)).toBe(true);
  });
});
