// The story of issue 34: an 8-file suite, each file on its own org and clock, run with 4 workers against one shared
// emulator, passes every time; and the run leaves no data dir behind. The suite uses the built package, as a
// receiver app does (parallel-suite/vitest.config.ts), so a dist/ older than the sources is refused first.
//
// One run by default, and then nothing may be left in its TMPDIR (a data dir, a runtime file): what a second run
// would trip over is checked directly (its ports are the system's choice). SVC_TEST_SOAK=1 runs three in a row.
import {spawn} from 'node:child_process';
import {mkdtemp, readdir, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {fileURLToPath} from 'node:url';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {assertFreshBuild} from '../helpers/fresh-build.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CONFIG = fileURLToPath(new URL('./parallel-suite/vitest.config.ts', import.meta.url));
const VITEST = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');
const RUNS = process.env.SVC_TEST_SOAK === '1' ? 3 : 1;

let scratch: string | undefined;
afterAll(async () => {
  if (scratch) await rm(scratch, {recursive: true, force: true});
});

function runSuite(env: NodeJS.ProcessEnv): Promise<{code: number | null; output: string}> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [VITEST, 'run', '--config', CONFIG, '--maxWorkers', '4'], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => {
      output += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      output += c.toString();
    });
    child.on('close', (code) => resolve({code, output}));
  });
}

describe('an 8-file suite on one shared emulator, 4 workers', () => {
  beforeAll(() => assertFreshBuild());

  it(`passes ${RUNS === 1 ? 'a run' : `${RUNS} runs in a row`}, each file on its own org and clock, and leaves nothing behind`, async () => {
    scratch = await mkdtemp(join(tmpdir(), 'svc-parallel-suite-'));
    const env = {...process.env, TMPDIR: scratch, NO_COLOR: '1', CI: ''};
    for (let run = 1; run <= RUNS; run++) {
      const {code, output} = await runSuite(env);
      expect(code, `run ${run}:\n${output}`).toBe(0);
      expect(output).toMatch(/Test Files\s+8 passed \(8\)/);
    }
    expect((await readdir(scratch)).filter((name) => name.startsWith('svc-testing-'))).toEqual([]);
  }, 600_000);
});
