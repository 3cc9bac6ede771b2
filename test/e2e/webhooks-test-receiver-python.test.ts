// The seeded-bug receivers of issue 43 in Python (the standard library only: test/e2e/receivers/seeded.py, one bug
// chosen by BUG), each graded by test-receiver's own service over real HTTP on loopback: every bug fails exactly the
// checks that name it (or gets the diagnosis that does), and the reference receiver (BUG=none) passes every check,
// the future group, the race with its probe and a burst. The same bugs in Node are seeded in the other
// webhooks-test-receiver*.test.ts files and webhooks-diagnose.test.ts. The receivers run at once, one process each.
import {type ChildProcess, spawn} from 'node:child_process';
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {fileURLToPath} from 'node:url';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {type ReceiverReport, testReceiver} from '../../src/services/webhooks/test-receiver.js';
import {RECEIVER_CHECK_IDS} from '../../src/services/webhooks/receiver-checks.js';
import {describeNeeding, PYTHON, PYTHON_PATH} from '../helpers/requirements.js';

const SECRET = 'whsec_c2VlZGVkLXB5dGhvbi1yZWNlaXZlcnMtc2VjcmV0LTAxMjM0NTY3ODk=';
const RECEIVERS = join(fileURLToPath(new URL('.', import.meta.url)), 'receivers');

interface Case {
  /** What test-receiver is asked to run besides `valid`. */
  run: {only?: string[]; race?: number; probe?: true; burst?: string};
  /** The checks that must fail; every other check run must pass. */
  failing: string[];
  /** What else the report must say. */
  also?: (report: ReceiverReport) => void;
}

const LATER_FIELDS = ['later-field-event', 'later-field-data', 'later-field-sandbox'];

/** The twelve bugs, each with what must catch it. */
const BUGS: Record<string, Case> = {
  'strict-enum': {run: {only: ['later-value-status']}, failing: ['later-value-status']},
  'additional-properties': {run: {only: LATER_FIELDS}, failing: LATER_FIELDS},
  'switch-default-400': {run: {only: ['later-event-type']}, failing: ['later-event-type']},
  'throw-unknown-field': {
    run: {only: ['later-field-event', 'later-field-sandbox']},
    failing: ['later-field-sandbox'],
  },
  'check-then-insert': {
    run: {race: 2, probe: true},
    failing: ['race'],
    also: (r) => expect(r.race?.applied_more_than_once.length).toBeGreaterThan(0),
  },
  'per-process-dedupe': {
    run: {race: 3, probe: true},
    failing: ['race'],
    also: (r) => expect(r.race?.applied_more_than_once.length).toBeGreaterThan(0),
  },
  'work-before-answer': {
    run: {burst: '10/s:1s'},
    failing: ['burst'],
    also: (r) => expect(r.burst?.slow_ack).toBe(true),
  },
  'wrong-secret': {
    run: {only: ['valid']},
    failing: ['valid'],
    also: (r) => expect(r.diagnosis?.code).toBe('secret_mismatch'),
  },
  'parsed-body': {
    run: {only: ['reserialized-whitespace', 'reserialized-key-order']},
    failing: ['reserialized-whitespace'],
  },
  'clock-skew': {
    run: {only: ['stale-299', 'future-299']},
    failing: ['valid', 'stale-299', 'future-299'],
    also: (r) => {
      expect(r.diagnosis).toBeUndefined();
      expect(r.checks.find((c) => c.id === 'valid')?.got).toMatch(/^400 .*tolerance/);
    },
  },
  'trailing-slash': {
    run: {only: ['valid']},
    failing: ['valid'],
    also: (r) => expect(r.checks[0]?.fix).toMatch(/does not follow redirects .*trailing slash/),
  },
  'body-limit': {
    run: {only: ['large-body']},
    failing: ['large-body'],
    also: (r) => expect(r.checks.find((c) => c.id === 'large-body')?.got).toMatch(/^413/),
  },
};

const running: ChildProcess[] = [];
const urls = new Map<string, string>();
/** Where each receiver keeps its ledger of applied events. */
const dir = mkdtempSync(join(tmpdir(), 'svc-seeded-'));

/** Starts seeded.py with BUG=bug, and resolves with the address it prints. */
function start(bug: string): Promise<string> {
  const child = spawn(PYTHON_PATH, ['seeded.py'], {
    cwd: RECEIVERS,
    env: {PATH: process.env.PATH, SVC_WEBHOOK_SECRET: SECRET, BUG: bug, PORT: '0', LEDGER: join(dir, bug)},
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
    child.once('exit', (code) => reject(new Error(`seeded.py BUG=${bug} exited with ${code}:\n${err}`)));
  });
}

afterAll(() => {
  for (const child of running) child.kill('SIGKILL');
  rmSync(dir, {recursive: true, force: true});
});

function grade(bug: string, run: Case['run']): Promise<ReceiverReport> {
  const url = urls.get(bug) as string;
  const {probe, ...rest} = run;
  return testReceiver({
    ...rest,
    url,
    secret: SECRET,
    env: {},
    only: run.only ?? ['valid'],
    ...(probe ? {probe: url.replace(/\/webhooks$/, '/probe')} : {}),
  });
}

describeNeeding([PYTHON], 'seeded-bug receivers in Python', () => {
  beforeAll(async () => {
    const bugs = ['none', ...Object.keys(BUGS)];
    const started = await Promise.all(bugs.map(start));
    for (const [i, bug] of bugs.entries()) urls.set(bug, started[i] as string);
  }, 60_000);

  it('are the issue’s twelve', () => {
    expect(Object.keys(BUGS)).toHaveLength(12);
  });

  describe.concurrent('each is caught by the check that names it', () => {
    for (const [bug, c] of Object.entries(BUGS)) {
      it(bug, {timeout: 90_000}, async () => {
        const report = await grade(bug, c.run);
        const failed = report.checks.filter((v) => v.status === 'fail').map((v) => v.id);
        expect(failed.sort(), JSON.stringify(report.checks, null, 2)).toEqual([...c.failing].sort());
        expect(report.checks.filter((v) => v.status === 'skip')).toEqual([]);
        c.also?.(report);
      });
    }

    it('the reference receiver (BUG=none) passes every check, the race with its probe and a burst', {
      timeout: 90_000,
    }, async () => {
      const report = await grade('none', {race: 3, probe: true, burst: '10/s:1s'});
      // No `only`: grade() asks for `valid` alone, so run the whole battery here.
      const full = await testReceiver({url: urls.get('none') as string, secret: SECRET, env: {}});
      const findings = [...report.checks, ...full.checks].filter((v) => v.status !== 'pass');
      expect(findings.map((v) => `${v.id}: ${v.got}`)).toEqual([]);
      expect(full.checks.map((v) => v.id).sort()).toEqual([...RECEIVER_CHECK_IDS].sort());
    });
  });
});
