// The receiver author's guide (docs/receivers.md) keeps its word: its example receivers, the files in
// docs/examples/receivers/ run as a reader runs them, pass every check of `svc webhooks test-receiver` (the later
// service's deliveries, the race with its probe and a burst included), and it gives a fix for every check id.
import {type ChildProcess, spawn} from 'node:child_process';
import {existsSync, readFileSync} from 'node:fs';
import {join} from 'node:path';
import {fileURLToPath} from 'node:url';
import {afterAll, describe, expect, it} from 'vitest';
import {BURST_CHECK_ID} from '../../src/services/webhooks/burst.js';
import {RACE_CHECK_ID} from '../../src/services/webhooks/race.js';
import {FUTURE_CHECK_IDS, RECEIVER_CHECK_IDS} from '../../src/services/webhooks/receiver-checks.js';
import {describeNeeding, PYTHON, PYTHON_PATH} from '../helpers/requirements.js';
import {runCommand} from '../helpers/run-cli.js';

const SECRET = 'whsec_cmVjZWl2ZXItZ3VpZGUtZXhhbXBsZXMtc2VjcmV0LTAxMjM0NTY3';
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const EXAMPLES = join(ROOT, 'docs', 'examples', 'receivers');
const GUIDE = readFileSync(join(ROOT, 'docs', 'receivers.md'), 'utf8');

const running: ChildProcess[] = [];
afterAll(() => {
  for (const child of running) child.kill('SIGKILL');
});

/** Starts an example as its header says to, and resolves with the address its first line prints. */
function start(command: string, file: string): Promise<string> {
  const child = spawn(command, [file], {
    cwd: EXAMPLES,
    env: {PATH: process.env.PATH, SVC_WEBHOOK_SECRET: SECRET, PORT: '0'},
  });
  running.push(child);
  let out = '';
  let err = '';
  return new Promise((resolve, reject) => {
    child.stderr?.on('data', (d) => {
      err += d;
    });
    child.stdout?.on('data', (d) => {
      out += d;
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
      if (url) resolve(url);
    });
    child.once('exit', (code) => reject(new Error(`${file} exited with ${code} before listening:\n${err}`)));
  });
}

interface Report {
  checks: {id: string; status: string; got: string}[];
  race?: {probe: string | null; rounds: number; applied_more_than_once: unknown[]};
}

/** The guide's grading command: every check, the race with the probe and a burst; every one must pass. */
async function gradeAsTheGuideSays(url: string): Promise<void> {
  const probe = url.replace(/\/webhooks$/, '/svc-probe');
  const r = await runCommand(
    ['webhooks', 'test-receiver', url, '--json', '--race', '--probe', probe, '--burst', '20/s:2s'],
    {env: {SVC_WEBHOOK_SECRET: SECRET}},
  );
  expect(r.stdout + r.stderr).not.toContain(SECRET);
  const report = JSON.parse(r.stdout) as Report;
  const failing = report.checks.filter((c) => c.status !== 'pass').map((c) => `${c.id}: ${c.got}`);
  expect(failing).toEqual([]);
  expect(report.checks.map((c) => c.id)).toEqual([...RECEIVER_CHECK_IDS, RACE_CHECK_ID, BURST_CHECK_ID]);
  expect(report.race?.probe).toBe(probe);
  expect(report.race?.applied_more_than_once).toEqual([]);
  expect(r.code).toBe(0);
}

describe('docs/receivers.md', () => {
  const fixes = GUIDE.slice(GUIDE.indexOf("## Each check's fix"));

  it('gives a fix for every check id test-receiver has, the later service’s, the race and the burst', () => {
    expect(FUTURE_CHECK_IDS.length).toBeGreaterThan(0);
    const missing = [...RECEIVER_CHECK_IDS, RACE_CHECK_ID, BURST_CHECK_ID].filter(
      (id) => !fixes.includes(`**\`${id}\`**`),
    );
    expect(missing, 'check ids without a paragraph in "Each check\'s fix"').toEqual([]);
  });

  it('names no check id that test-receiver does not have', () => {
    const named = [...fixes.matchAll(/\*\*`([a-z0-9-]+)`\*\*/g)].map((m) => m[1]);
    const known = new Set<string>([...RECEIVER_CHECK_IDS, RACE_CHECK_ID, BURST_CHECK_ID]);
    expect(named.filter((id) => !known.has(id as string))).toEqual([]);
  });

  it('links example files that exist', () => {
    for (const file of ['receiver.py', 'receiver.mjs']) {
      expect(GUIDE).toContain(`(examples/receivers/${file})`);
      expect(existsSync(join(EXAMPLES, file))).toBe(true);
    }
  });
});

describe('the guide’s Node receiver (docs/examples/receivers/receiver.mjs)', () => {
  it('passes every check, the later service’s deliveries, the race with its probe and a burst', {
    timeout: 180_000,
  }, async () => {
    await gradeAsTheGuideSays(await start(process.execPath, 'receiver.mjs'));
  });
});

describeNeeding([PYTHON], 'the guide’s Python receiver (docs/examples/receivers/receiver.py)', () => {
  it('passes every check, the later service’s deliveries, the race with its probe and a burst', {
    timeout: 180_000,
  }, async () => {
    await gradeAsTheGuideSays(await start(PYTHON_PATH, 'receiver.py'));
  });
});
