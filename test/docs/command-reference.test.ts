// docs/commands.md is the command reference people read; it is written from the commands themselves, and this
// test keeps the file in step: a flag, argument or summary changed in src/commands without rewriting the file fails.
import {readFileSync} from 'node:fs';
import {beforeAll, describe, expect, it} from 'vitest';
// @ts-expect-error: a plain JavaScript build script, without declarations.
import {commandReference, REFERENCE, readManifest} from '../../scripts/write-command-reference.js';
import {assertFreshBuild} from '../helpers/fresh-build.js';

// The manifest comes from the build: a stale one would compare yesterday's commands.
beforeAll(() => assertFreshBuild());

describe('the command reference', () => {
  it('is what the commands say, written by scripts/write-command-reference.js', () => {
    const expected = commandReference(readManifest());
    const actual = readFileSync(REFERENCE, 'utf8');
    expect(actual, 'run `npm run build && node scripts/write-command-reference.js`').toBe(expected);
  });

  it('names every command with its flags, and would notice one missing', () => {
    const manifest = readManifest();
    const text = commandReference(manifest);
    for (const command of Object.values(manifest.commands) as {
      id: string;
      flags: Record<string, unknown>;
    }[]) {
      expect(text).toContain(`## \`svc ${command.id.split(':').join(' ')}\``);
    }
    expect(text).toContain('`--api-url URL`');
    const without = structuredClone(manifest);
    delete without.commands.org;
    expect(commandReference(without)).not.toBe(text);
  });
});
