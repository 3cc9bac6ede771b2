// `svc scenario run`: every file checked first (all their problems at once: exit 2 before anything runs), then
// each run on an org of its own on the emulator chosen here (see chooseEmulator), all at once.
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import type {EmulatorControl} from '@svc/client';
import {SCENARIO_LIMITS} from '../../definitions.js';
import {ExitCode} from '../../lib/exit-codes.js';
import {UserError, usageError} from '../../lib/errors.js';
import {readScenarioFile, runScenario, ScenarioFileError} from '../../scenario/run.js';
import type {FileProblem, ReadScenario, ScenarioResult} from '../../scenario/types.js';
import {controlOf, type LocateOptions, locateEmulator, notFoundError} from '../emulator/locate.js';
import {startOrExplain} from '../emulator/start.js';

/** Which emulator runs the scenarios: `auto` (a running one with a manual clock, else one of its own). */
export const SCENARIO_EMULATOR_CHOICES = ['auto', 'running', 'own'] as const;
export type ScenarioEmulatorChoice = (typeof SCENARIO_EMULATOR_CHOICES)[number];

export interface ScenarioRunOptions extends LocateOptions {
  files: readonly string[];
  emulator: ScenarioEmulatorChoice;
  /** `--receiver NAME=COMMAND`, each as given. */
  receivers?: readonly string[];
  keepOrgs?: boolean;
  /** Says which emulator was chosen, and why, for stderr. */
  note?: (text: string) => void;
}

export interface ScenarioReport {
  /** The emulator's address, and whether the run started it (and stopped it after). */
  emulator: {api_url: string; own: boolean};
  passed: number;
  failed: number;
  scenarios: ScenarioResult[];
}

export const INVALID_SCENARIO_CODE = 'invalid_scenario';

function fileError(problems: readonly (FileProblem & {file: string})[]): UserError {
  const lines = problems.map(
    (p) => `${p.file}:${p.line}:${p.column}: ${p.path ? `${p.path} ` : ''}${p.message}`,
  );
  return new UserError(
    `${problems.length === 1 ? 'a scenario file is wrong' : `scenario files have ${problems.length} problems`}:\n${lines.join('\n')}`,
    {
      code: INVALID_SCENARIO_CODE,
      exitCode: ExitCode.usage,
      suggestions: [
        'The fields and steps of a scenario file are in docs/scenarios.md (JSON Schema: fixtures/scenario.schema.json)',
      ],
    },
  );
}

/** `NAME=COMMAND` as a receiver's name and the command line that replaces the file's. */
export function parseReceiverFlag(text: string): [string, string] {
  const at = text.indexOf('=');
  if (at <= 0 || at === text.length - 1) {
    throw usageError(`--receiver ${JSON.stringify(text)} is not NAME=COMMAND`, [
      "For example: --receiver app='node receiver.mjs'",
    ]);
  }
  return [text.slice(0, at), text.slice(at + 1)];
}

/** Every file read and checked; every problem of every file in one error. */
async function readAll(files: readonly string[]): Promise<ReadScenario[]> {
  if (files.length > SCENARIO_LIMITS.files) {
    throw usageError(
      `${files.length} scenario files are more than one run takes (${SCENARIO_LIMITS.files})`,
      ['Run them in several batches'],
    );
  }
  const outcomes = await Promise.allSettled(files.map((f) => readScenarioFile(f)));
  const problems = outcomes.flatMap((o) =>
    o.status === 'rejected' && o.reason instanceof ScenarioFileError
      ? o.reason.problems.map((p) => ({...p, file: o.reason.file as string}))
      : [],
  );
  if (problems.length > 0) throw fileError(problems);
  return outcomes.map((o) => {
    if (o.status === 'rejected') throw o.reason;
    return o.value;
  });
}

interface Chosen {
  control: EmulatorControl;
  apiUrl: string;
  own: boolean;
  stop(): Promise<void>;
}

/**
 * The emulator the scenarios run on. `running`: the one `svc trigger` would use, which must have a manual clock
 * (a scenario moves its org's clock). `own`: one started in this process for the run (in memory, manual clock,
 * loopback endpoints allowed) and stopped after it. `auto`: the running one when it has a manual clock, else
 * one of its own, saying why.
 */
async function chooseEmulator(options: ScenarioRunOptions): Promise<Chosen> {
  if (options.emulator !== 'own') {
    const located = await locateEmulator(options);
    if (located.found) {
      const control = controlOf(located);
      const {mode} = await control.clock();
      if (mode === 'manual') return {control, apiUrl: located.info.api_url, own: false, stop: async () => {}};
      if (options.emulator === 'running') {
        throw new UserError(
          `the emulator at ${located.info.api_url} runs on a real clock: a scenario moves its org's clock, which only a manual clock allows`,
          {
            code: 'real_clock',
            suggestions: [
              'Start it with `svc emulator start --clock manual --allow-local-endpoints`',
              'Or run the scenarios on an emulator of their own: --emulator own',
            ],
          },
        );
      }
      options.note?.(
        `The emulator at ${located.info.api_url} runs on a real clock; the scenarios run on one of their own.`,
      );
    } else if (options.emulator === 'running') {
      throw notFoundError(located);
    }
  }
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-scenario-'));
  try {
    const emulator = await startOrExplain({
      port: 0,
      dataDir,
      inMemory: true,
      clock: 'manual',
      allowLocalEndpoints: true,
    });
    return {
      control: emulator.control,
      apiUrl: emulator.apiUrl,
      own: true,
      stop: async () => {
        await emulator.stop();
        await rm(dataDir, {recursive: true, force: true});
      },
    };
  } catch (err) {
    await rm(dataDir, {recursive: true, force: true});
    throw err;
  }
}

export async function runScenarioFiles(options: ScenarioRunOptions): Promise<ScenarioReport> {
  const receivers = Object.fromEntries((options.receivers ?? []).map(parseReceiverFlag));
  const read = await readAll(options.files);
  const problems = read.flatMap((r) =>
    Object.keys(receivers)
      .filter((name) => !(name in (r.scenario.receivers ?? {})))
      .map((name) => ({
        file: r.file,
        line: 1,
        column: 1,
        path: 'receivers',
        message: `has no receiver ${JSON.stringify(name)} for --receiver to replace`,
      })),
  );
  if (problems.length > 0) throw fileError(problems);
  const chosen = await chooseEmulator(options);
  try {
    const scenarios = await Promise.all(
      read.map((scenario) =>
        runScenario({
          emulator: chosen.control,
          scenario,
          env: options.env,
          receivers,
          keepOrg: options.keepOrgs,
        }),
      ),
    );
    const passed = scenarios.filter((s) => s.passed).length;
    return {
      emulator: {api_url: chosen.apiUrl, own: chosen.own},
      passed,
      failed: scenarios.length - passed,
      scenarios,
    };
  } finally {
    await chosen.stop();
  }
}
