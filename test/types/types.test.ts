// Types that catch typos: tsc over typos.ts, whose every `@ts-expect-error` line must fail to compile (a misspelt
// field, event type, sandbox action, duration or option) while the lines spelt right compile, under module
// nodenext and under bundler resolution. typos.ts imports the packages by name, so tsc reads the declarations
// the build publishes (@svc/client's bundle, @svc/cli's dist/), as a user's project would. The two resolutions make two programs that share nothing, so the two
// tsc runs start together, each a process of its own, and each test waits for its own.
import {spawn} from 'node:child_process';
import {fileURLToPath} from 'node:url';
import {beforeAll, describe, expect, it} from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSC = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));
const RESOLUTIONS = ['nodenext', 'bundler'] as const;

interface Run {
  status: number | null;
  output: string;
}

function tsc(resolution: (typeof RESOLUTIONS)[number]): Promise<Run> {
  const config = fileURLToPath(new URL(`./tsconfig.${resolution}.json`, import.meta.url));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [TSC, '-p', config, '--pretty', 'false'], {cwd: ROOT});
    let output = '';
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString('utf8');
    });
    child.stderr.on('data', (d: Buffer) => {
      output += d.toString('utf8');
    });
    child.on('error', reject);
    child.on('close', (status) => resolve({status, output}));
  });
}

describe('record types catch typos', () => {
  const runs = new Map<string, Promise<Run>>();
  beforeAll(() => {
    for (const resolution of RESOLUTIONS) {
      const run = tsc(resolution);
      // Awaited by its test; a test left out (-t) leaves its run unawaited, not unhandled.
      run.catch(() => undefined);
      runs.set(resolution, run);
    }
  });

  for (const resolution of RESOLUTIONS) {
    it(`under ${resolution}: every typo is a compile error, every right spelling compiles`, async () => {
      const run = await (runs.get(resolution) as Promise<Run>);
      expect(run.output).toBe('');
      expect(run.status).toBe(0);
    }, 300_000);
  }
});
