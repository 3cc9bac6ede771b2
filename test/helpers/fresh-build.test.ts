// The stale-build check that e2e tests run first: a source changed after the last build is named, with the fix.
import {mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {dirname, join} from 'node:path';
import {afterEach, beforeEach, describe, expect, it} from 'vitest';
import {staleBuildError, staleSources} from './fresh-build.js';

let root: string;
const BUILT_AT = new Date('2030-01-01T00:00:00Z');
const later = new Date(BUILT_AT.getTime() + 60_000);
const earlier = new Date(BUILT_AT.getTime() - 60_000);

function file(rel: string, time: Date): void {
  const path = join(root, rel);
  mkdirSync(dirname(path), {recursive: true});
  writeFileSync(path, '');
  utimesSync(path, time, time);
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'svc-fresh-build-'));
  // A build: the bundle (rewritten by every build) and the compiled files, all from before or at BUILT_AT.
  file('dist/cli/bundle.cjs', BUILT_AT);
  file('src/commands/org.ts', earlier);
  file('dist/src/commands/org.js', earlier);
  file('src/emulator/db/migrations/001_init.sql', earlier);
  file('dist/src/emulator/db/migrations/001_init.sql', earlier);
  file('src/ui/tui/app.tsx', earlier);
  file('dist/src/ui/tui/app.js', earlier);
});
afterEach(() => rmSync(root, {recursive: true, force: true}));

describe('the stale-build check', () => {
  it('passes a build newer than every source', () => {
    expect(staleSources(root)).toEqual([]);
    expect(staleBuildError(root)).toBeUndefined();
  });

  it('names sources changed after the build, newest first, and says how to rebuild', () => {
    file('src/commands/org.ts', later);
    file('src/emulator/db/migrations/001_init.sql', new Date(later.getTime() + 1000));
    expect(staleSources(root)).toEqual(['src/emulator/db/migrations/001_init.sql', 'src/commands/org.ts']);
    expect(staleBuildError(root)?.message).toMatch(
      /^dist\/ is older than the sources \(src\/emulator\/db\/migrations\/001_init\.sql, src\/commands\/org\.ts changed since the last build\)\. Run `npm run build` first/,
    );
  });

  it('counts a source the build never compiled, and a build without its bundle', () => {
    file('src/commands/new-one.ts', earlier);
    expect(staleSources(root)).toEqual(['src/commands/new-one.ts']);
    rmSync(join(root, 'dist', 'cli'), {recursive: true});
    expect(staleSources(root)).toHaveLength(4);
  });

  it('ignores files the build does not take (type declarations, notes)', () => {
    file('src/types.d.ts', later);
    file('src/emulator/README.md', later);
    expect(staleSources(root)).toEqual([]);
  });
});
