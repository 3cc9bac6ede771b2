// Time in the emulator is read through the injected clock (src/emulator/clock.ts) and waited on through the
// injected timers (src/emulator/delivery/timers.ts), so a test can set or fake it. This finds every other read
// of real time (`Date.now()`, `new Date()` without arguments) and every bare `setTimeout` or `setInterval` (a
// repetition goes through `every` of the timers) in src/emulator: there are none, and a new one fails here.
import {readdirSync, readFileSync} from 'node:fs';
import {dirname, join, resolve} from 'node:path';
import {fileURLToPath} from 'node:url';
import {describe, expect, it} from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * The clock and the timers themselves, the one place real time is read; and a page whose script (run by the
 * browser, not the emulator) reads the browser's time.
 */
const CLOCK_MODULES = [
  'src/emulator/clock.ts',
  'src/emulator/delivery/timers.ts',
  'src/emulator/web/own-name-page.ts',
];

const REAL_TIME = /\bDate\.now\(\)|\bnew Date\(\)|(?<![.\w])set(Timeout|Interval)\(/;

/** The lines of a source that read real time, comments left out. */
function realTimeReads(source: string): string[] {
  return source
    .split('\n')
    .filter((line) => !/^\s*(\/\/|\*|\/\*)/.test(line))
    .filter((line) => REAL_TIME.test(line));
}

function emulatorFiles(): string[] {
  return readdirSync(join(ROOT, 'src/emulator'), {recursive: true, encoding: 'utf8'})
    .filter((name) => /\.tsx?$/.test(name))
    .map((name) => `src/emulator/${name.split('\\').join('/')}`)
    .sort();
}

describe('time in the emulator', () => {
  it('is read only through the injected clock and timers', () => {
    const reading = emulatorFiles().filter(
      (file) =>
        !CLOCK_MODULES.includes(file) && realTimeReads(readFileSync(join(ROOT, file), 'utf8')).length > 0,
    );
    expect(reading, 'files of src/emulator that read real time outside the clock').toEqual([]);
  });

  it('finds each way of reading real time, and not the clock nor a date made from a value', () => {
    const source = [
      'const a = Date.now();',
      'const b = new Date();',
      'const t = setTimeout(done, 10);',
      'const i = setInterval(ping, 15_000);',
      'const c = new Date(ms);',
      'const d = ctx.clock.nowMs();',
      'const e = timers.setTimeout(done, 10);',
      'const f = every(timers, 15_000, ping);',
      '// Date.now() in a comment',
    ].join('\n');
    expect(realTimeReads(source)).toEqual([
      'const a = Date.now();',
      'const b = new Date();',
      'const t = setTimeout(done, 10);',
      'const i = setInterval(ping, 15_000);',
    ]);
  });
});
