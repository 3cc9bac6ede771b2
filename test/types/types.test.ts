// Types that catch typos: tsc over typos.ts, whose every `@ts-expect-error` line must fail to compile (a misspelt
// field, event type, sandbox action, duration or option) while the lines spelt right compile, under module
// nodenext and under bundler resolution.
import {spawnSync} from 'node:child_process';
import {fileURLToPath} from 'node:url';
import {describe, expect, it} from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSC = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));

describe('record types catch typos', () => {
  for (const resolution of ['nodenext', 'bundler']) {
    it(`under ${resolution}: every typo is a compile error, every right spelling compiles`, () => {
      const config = fileURLToPath(new URL(`./tsconfig.${resolution}.json`, import.meta.url));
      const run = spawnSync(process.execPath, [TSC, '-p', config, '--pretty', 'false'], {
        cwd: ROOT,
        encoding: 'utf8',
      });
      expect(run.stdout + run.stderr).toBe('');
      expect(run.status).toBe(0);
    }, 300_000);
  }
});
