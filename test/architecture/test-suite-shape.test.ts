// The shape that keeps the suite fast and steady under load, checked on every test file: the built CLI spawned only
// where a process is the point (start-up, signals, terminals, the installed layout), never an emulator started per
// test, no poll where a wait can be pushed (each poll left says why), and a written reason wherever a file runs its
// cases on both storages. Tests that only check what a command prints use the in-process runner (runCommand).
import {readdirSync, readFileSync} from 'node:fs';
import {join, relative} from 'node:path';
import {fileURLToPath} from 'node:url';
import {describe, expect, it} from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TEST = join(ROOT, 'test');
const HELPERS = /^test\/helpers\//;

function walk(dir: string): string[] {
  return readdirSync(dir, {withFileTypes: true}).flatMap((e) =>
    e.isDirectory() ? walk(join(dir, e.name)) : /\.(ts|tsx|mjs)$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

const FILES = walk(TEST).map((path) => ({
  path: relative(ROOT, path).split('\\').join('/'),
  lines: readFileSync(path, 'utf8').split('\n'),
}));
/** Lines that are code, not comments. */
const code = (line: string) => !/^\s*(\/\/|\*|\/\*)/.test(line);

/** The places a test starts the built CLI as a process of its own. */
const SPAWN = /\b(runCli|spawnCli|startEmulatorProcess)\(|spawn\(process\.execPath, \[BIN/;
/** The helpers that poll (on a timer) instead of being told. */
const POLL = /(^|[^.\w])waitFor\(|vi\.waitFor\(/;

function sites(pattern: RegExp, options: {skipDefinitions?: RegExp} = {}) {
  return FILES.filter((f) => !HELPERS.test(f.path)).flatMap((f) =>
    f.lines.flatMap((line, i) =>
      code(line) && pattern.test(line) && !options.skipDefinitions?.test(line)
        ? [{file: f.path, line: i + 1}]
        : [],
    ),
  );
}

describe('the test suite', () => {
  it('spawns the built CLI at 40 sites at most: start-up, signals, terminals and the installed layout', () => {
    const spawns = sites(SPAWN, {skipDefinitions: /function (runCli|spawnCli|startEmulatorProcess)\b/});
    expect(spawns.length, spawns.map((s) => `${s.file}:${s.line}`).join('\n')).toBeLessThanOrEqual(40);
  });

  it('polls at 10 sites at most, and each says why nothing can push the change it waits for', () => {
    const polls = sites(POLL, {skipDefinitions: /function waitFor\b/});
    expect(polls.length, polls.map((s) => `${s.file}:${s.line}`).join('\n')).toBeLessThanOrEqual(10);
    const unexplained = polls.filter(({file, line}) => {
      const lines = FILES.find((f) => f.path === file)?.lines ?? [];
      // The reason sits in the comment lines just above the call (or on its line).
      const above = lines.slice(Math.max(0, line - 4), line).join('\n');
      return !/\/\/.*\b(poll|polled|polls)\b/i.test(above);
    });
    expect(unexplained.map((s) => `${s.file}:${s.line}`)).toEqual([]);
  });

  it('starts no emulator for each test: an emulator is shared by a file and its tests are kept apart in it', () => {
    const perTest = FILES.filter((f) => {
      const text = f.lines.join('\n');
      // Each beforeEach body, up to the closing line at its own indentation.
      return [...text.matchAll(/^([ \t]*)beforeEach\(([\s\S]*?)\n\1\}\);/gm)].some((m) =>
        /startEmulator(Process)?\(/.test(m[2] ?? ''),
      );
    }).map((f) => f.path);
    expect(perTest).toEqual([]);
  });

  it('says in each file that runs on both storages why the file needs PostgreSQL as well as PGlite', () => {
    const silent = FILES.filter(
      (f) =>
        !HELPERS.test(f.path) &&
        f.lines.some((l) => code(l) && /describeEachBackend\(/.test(l)) &&
        !f.lines.some((l) => /^\/\/ Backends: \S/.test(l)),
    ).map((f) => f.path);
    expect(silent, 'add a line "// Backends: <why this file runs on PostgreSQL too>" at its top').toEqual([]);
  });
});
