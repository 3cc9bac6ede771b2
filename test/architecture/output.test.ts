// One session, one output: a command writes only through BaseCommand (`show`, `showEach`, `say`, `note`, `warn`;
// the streams of a terminal-only run through `this.streams()`), so --json, the spelling of svc in hints and the
// in-process runner's capture hold for every command; and a service writes to no stream: it returns records or
// reports through what its command hands in. This finds every other way to the streams in src/commands and
// src/services: there are none, and a new one fails here.
import {readdirSync, readFileSync} from 'node:fs';
import {dirname, join, resolve} from 'node:path';
import {fileURLToPath} from 'node:url';
import {describe, expect, it} from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** The process's streams taken directly, oclif's writers, and a stream written to by hand. */
const OWN_WAY_OUT =
  /\bprocess\.std(out|err|in)\b|\bthis\.(log|logToStderr|logJson)\(|\bconsole\.(log|error|info|warn)\(|\.(stdout|stderr)\.write\(/;

/** The lines of a source that reach the streams their own way, comments left out. */
function ownWaysOut(source: string): string[] {
  return source
    .split('\n')
    .filter((line) => !/^\s*(\/\/|\*|\/\*)/.test(line))
    .filter((line) => OWN_WAY_OUT.test(line));
}

function sourcesOf(folder: string): string[] {
  return readdirSync(join(ROOT, folder), {recursive: true, encoding: 'utf8'})
    .filter((name) => /\.tsx?$/.test(name))
    .map((name) => `${folder}/${name.split('\\').join('/')}`)
    .sort();
}

function offenders(folder: string): string[] {
  return sourcesOf(folder).flatMap((file) =>
    ownWaysOut(readFileSync(join(ROOT, file), 'utf8')).map((line) => `${file}: ${line.trim()}`),
  );
}

describe('one output', () => {
  it('commands write only through BaseCommand', () => {
    expect(sourcesOf('src/commands').length).toBeGreaterThan(40);
    expect(offenders('src/commands'), 'lines of src/commands that reach the streams their own way').toEqual(
      [],
    );
  });

  it('services write to no stream', () => {
    expect(sourcesOf('src/services').length).toBeGreaterThan(40);
    expect(offenders('src/services'), 'lines of src/services that write to a stream').toEqual([]);
  });

  it('finds each way to the streams, and not the ones BaseCommand gives', () => {
    const source = [
      "process.stdout.write('x');",
      "process.stderr.write('x');",
      'const tty = process.stdin.isTTY;',
      "this.log('x');",
      "this.logToStderr('x');",
      'this.logJson(result);',
      "console.error('x');",
      "io.stdout.write('x');",
      "this.say('x');",
      "this.note('x');",
      'await this.show(result, render);',
      'this.showEach(line, renderLogLine);',
      "this.warn('x');",
      'const {stdin, stdout} = this.streams();',
      'console.log = console.error;',
      "// process.stdout.write('in a comment')",
    ].join('\n');
    expect(ownWaysOut(source)).toEqual([
      "process.stdout.write('x');",
      "process.stderr.write('x');",
      'const tty = process.stdin.isTTY;',
      "this.log('x');",
      "this.logToStderr('x');",
      'this.logJson(result);',
      "console.error('x');",
      "io.stdout.write('x');",
    ]);
  });
});
