// The whole test suite as CI runs it (`vitest run`, CI mode, after a build), once: its wall time and the count of
// tests, beside the suite's budget of 240 s on a 2-core machine, and beside vitest's own floor (the same run with
// one trivial test file, which is what starting the pool and the global setup cost). The count of tests only
// grows: a faster suite that ran fewer tests would show it here.
//
// BENCH_SUITE_ARGS="test/e2e" narrows the run (then the budget row says nothing about the whole suite).
import {spawnSync} from 'node:child_process';
import {mkdtempSync, readFileSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {dirname, join} from 'node:path';
import {fileURLToPath} from 'node:url';
import {printTable} from './lib.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
const BUDGET_S = 240;
const narrowed = (process.env.BENCH_SUITE_ARGS ?? '').split(' ').filter(Boolean);

function run(args) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-suite-'));
  const report = join(dir, 'report.json');
  const started = performance.now();
  const r = spawnSync(
    process.execPath,
    [vitest, 'run', '--reporter=dot', '--reporter=json', `--outputFile.json=${report}`, ...args],
    {
      cwd: root,
      encoding: 'utf8',
      env: {...process.env, CI: 'true'},
      maxBuffer: 256 * 1024 * 1024,
    },
  );
  const seconds = (performance.now() - started) / 1000;
  let counts = {tests: 0, passed: 0, failed: 0, skipped: 0, files: 0};
  try {
    const json = JSON.parse(readFileSync(report, 'utf8'));
    counts = {
      tests: json.numTotalTests,
      passed: json.numPassedTests,
      failed: json.numFailedTests,
      skipped: json.numPendingTests + json.numTodoTests,
      files: json.numTotalTestSuites === undefined ? json.testResults.length : json.testResults.length,
    };
    // A failed run is no measure of the suite: say which tests failed, so it can be told apart from a slow one.
    for (const file of json.testResults)
      for (const test of file.assertionResults)
        if (test.status === 'failed') {
          // With the first lines of what failed: a failure seen once in a long run is otherwise not seen again.
          const why = (test.failureMessages?.[0] ?? '').split('\n').slice(0, 6).join('\n  ');
          process.stderr.write(
            `whole-suite: failed: ${file.name.slice(root.length)} > ${test.fullName}\n  ${why}\n`,
          );
        }
  } catch {
    process.stderr.write(`whole-suite: no report from vitest (exit ${r.status})\n${r.stderr.slice(-4000)}\n`);
  }
  rmSync(dir, {recursive: true, force: true});
  return {seconds, status: r.status, ...counts};
}

const floor = run(['test/lib/json-text.test.ts']);
const suite = run(narrowed);
printTable('the whole suite (CI mode, as vitest.config.ts sets its workers)', [
  {
    case: "vitest's floor: one small file",
    baseline: BUDGET_S,
    value: floor.seconds,
    unit: 's wall',
    ratio: floor.seconds / BUDGET_S,
  },
  {
    case: `${narrowed.length ? narrowed.join(' ') : 'the whole suite'}: ${suite.tests} tests in ${suite.files} files`,
    baseline: BUDGET_S,
    value: suite.seconds,
    unit: 's wall',
    ratio: suite.seconds / BUDGET_S,
    target: 1,
  },
]);
process.stdout.write(
  `whole-suite: ${suite.passed} passed, ${suite.failed} failed, ${suite.skipped} skipped; ` +
    `the baseline column is the budget (${BUDGET_S} s), so a ratio at or under 1 is within it\n`,
);
if (suite.status !== 0) process.exitCode = 1;
