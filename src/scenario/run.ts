// runScenario: one scenario file run on an org of its own, on an emulator with a manual clock. The org, its
// key and endpoints, the stand-in and the receivers the file starts are made first and removed after, whatever
// happened; the steps run in order, each expectation's verdict kept, and the run stops at a step that cannot be
// done. What `svc scenario run` runs for each file, and what a JS suite calls (`@svc/cli/testing`).
import {readFile, stat} from 'node:fs/promises';
import {dirname, resolve} from 'node:path';
import {createClient, EmulatorControl} from '@svc/client';
import {EVENT_TYPES, SCENARIO_LIMITS} from '../definitions.js';
import {orgCheckpoints} from './checkpoints.js';
import {check, expectationName} from './expect.js';
import {readScenarioText} from './read.js';
import {ReceiverStartError, type StartedReceiver, startReceiver} from './receivers.js';
import {startStandIn} from './stand-in.js';
import {doStep, stepText} from './steps.js';
import type {ExpectationResult, FileProblem, ReadScenario, ScenarioResult} from './types.js';
import {orgNow, type World} from './world.js';

/** A scenario file that cannot be run as written: every problem, each at its line and column. */
export class ScenarioFileError extends Error {
  constructor(
    readonly file: string,
    readonly problems: readonly FileProblem[],
  ) {
    super(
      problems
        .map((p) => `${file}:${p.line}:${p.column}: ${p.path ? `${p.path} ` : ''}${p.message}`)
        .join('\n'),
    );
    this.name = 'ScenarioFileError';
  }
}

/** Reads and checks a scenario file: the scenario, or a ScenarioFileError naming every problem. */
export async function readScenarioFile(file: string): Promise<ReadScenario> {
  let text: string;
  try {
    const info = await stat(file);
    if (!info.isFile())
      throw new ScenarioFileError(file, [{line: 1, column: 1, path: '', message: 'is not a file'}]);
    if (info.size > SCENARIO_LIMITS.fileBytes) {
      throw new ScenarioFileError(file, [
        {
          line: 1,
          column: 1,
          path: '',
          message: `is larger than ${SCENARIO_LIMITS.fileBytes / 1024} KiB, the most a scenario file may be`,
        },
      ]);
    }
    text = await readFile(file, 'utf8');
  } catch (err) {
    if (err instanceof ScenarioFileError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'does not exist' : `cannot be read (${code ?? (err as Error).message})`;
    throw new ScenarioFileError(file, [{line: 1, column: 1, path: '', message: why}]);
  }
  const outcome = await readScenarioText(text, file);
  if (!outcome.ok) throw new ScenarioFileError(file, outcome.problems);
  return outcome.read;
}

export interface RunScenarioOptions {
  /** The emulator: a control client that may make orgs (the admin token, or a token that only makes orgs). */
  emulator: EmulatorControl | {url: string; token: string};
  /** The scenario file (YAML or JSON); or `scenario`, one already read. */
  file?: string;
  scenario?: ReadScenario;
  /** What the receivers the file starts inherit (default: this process's environment). */
  env?: NodeJS.ProcessEnv;
  /** Commands that replace the file's for some of its receivers (by name): the same scenario, another receiver. */
  receivers?: Readonly<Record<string, string | readonly string[]>>;
  /** Keep the org after the run, to look at (default: deleted). */
  keepOrg?: boolean;
}

/**
 * Runs one scenario and says how each expectation went. Rejects with ScenarioFileError when the file is wrong
 * (before anything is made), and with the emulator's error when the run cannot start; a step the emulator refuses
 * mid-run ends the run as failed, with `error` naming the step.
 */
export async function runScenario(options: RunScenarioOptions): Promise<ScenarioResult> {
  const read =
    options.scenario ?? (options.file === undefined ? undefined : await readScenarioFile(options.file));
  if (!read) throw new TypeError('runScenario needs `file` (a scenario file) or `scenario`');
  const {scenario} = read;
  for (const name of Object.keys(options.receivers ?? {})) {
    if (!(name in (scenario.receivers ?? {}))) {
      const known = Object.keys(scenario.receivers ?? {});
      throw new ScenarioFileError(read.file, [
        {
          line: 1,
          column: 1,
          path: 'receivers',
          message: `has no receiver ${JSON.stringify(name)} to give a command to${known.length ? `; its receivers are: ${known.join(', ')}` : ''}`,
        },
      ]);
    }
  }
  // Told apart by shape, not class: the emulator's entry hands out a control client of its own copy of the client.
  const given = options.emulator;
  const maker =
    'token' in given && typeof given.token === 'string'
      ? new EmulatorControl({url: given.url, adminToken: given.token})
      : (given as EmulatorControl);
  const {org, token} = await maker.createControlToken({new_org: `scenario: ${scenario.name}`});
  if (!org) throw new Error('the emulator made no org for the scenario');
  const control = new EmulatorControl({url: maker.url, adminToken: token});
  const cleanups: (() => Promise<unknown>)[] = [];
  if (!options.keepOrg) cleanups.push(() => control.deleteOrg(org.id));
  const receivers: StartedReceiver[] = [];
  const results: ExpectationResult[] = [];
  let error: ScenarioResult['error'];
  let virtualMs = 0;
  try {
    const key = await control.createKey({name: 'scenario', org_id: org.id});
    const client = createClient({apiUrl: maker.url, apiKey: key.secret});
    const standIn = await startStandIn();
    cleanups.unshift(() => standIn.close());
    const world: World = {
      control,
      orgId: org.id,
      client,
      standIn,
      endpoints: new Map(),
      events: new Map(),
      sandboxes: new Map(),
      keys: new Map([['scenario', key.id]]),
      checkpoints: orgCheckpoints({url: maker.url, token}, org.id),
      chaos: new Set(),
    };
    if (scenario.start !== undefined) await control.setClock(scenario.start, {org: org.id});
    const startMs = await orgNow(world);
    const secrets = new Map<string, Record<string, string>>();
    for (const [name, spec] of Object.entries(scenario.endpoints)) {
      const made = await control.createWebhook({
        url: standIn.urlFor(name),
        events: [...(spec.events ?? EVENT_TYPES)],
        description: `scenario endpoint ${name}`,
        org_id: org.id,
      });
      world.endpoints.set(name, {id: made.id});
      if (spec.url !== undefined) {
        standIn.route(name, spec.url);
        if (spec.probe !== undefined)
          world.endpoints.set(name, {id: made.id, probe: new URL(spec.probe, spec.url)});
      } else if (spec.receiver !== undefined) {
        const mine = secrets.get(spec.receiver) ?? {SVC_WEBHOOK_SECRET: made.secret};
        mine[`SVC_WEBHOOK_SECRET_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`] = made.secret;
        secrets.set(spec.receiver, mine);
      }
    }
    const folder = read.file ? dirname(resolve(read.file)) : process.cwd();
    for (const [name, spec] of Object.entries(scenario.receivers ?? {})) {
      const command = options.receivers?.[name];
      const started = await startReceiver({
        name,
        spec:
          command === undefined
            ? spec
            : {...spec, command: typeof command === 'string' ? command : [...command]},
        folder,
        baseEnv: options.env ?? process.env,
        env: {...secrets.get(name), SVC_API_URL: maker.url, SVC_API_KEY: key.secret},
      });
      receivers.push(started);
      for (const [endpoint, e] of Object.entries(scenario.endpoints)) {
        if (e.receiver !== name) continue;
        standIn.route(endpoint, `${started.url}${e.path ?? ''}`);
        const id = world.endpoints.get(endpoint)?.id as string;
        world.endpoints.set(endpoint, {
          id,
          ...(e.probe === undefined ? {} : {probe: new URL(e.probe, started.url)}),
        });
      }
    }
    try {
      for (const [i, step] of scenario.steps.entries()) {
        const line = read.stepPlaces[i]?.line ?? 0;
        try {
          if ('expect' in step) {
            const verdict = await check(world, step.expect);
            results.push({name: expectationName(step.expect), step: i, line, ...verdict});
          } else {
            await doStep(world, step);
          }
        } catch (err) {
          error = {step: i, line, message: `${stepText(step)}: ${(err as Error).message}`};
          break;
        }
      }
    } finally {
      virtualMs = (await orgNow(world).catch(() => startMs)) - startMs;
    }
  } catch (err) {
    if (!(err instanceof ReceiverStartError)) throw err;
    error = {
      step: -1,
      line: 0,
      message: `${err.message}${err.output ? `; its last output:\n${err.output}` : ''}`,
    };
  } finally {
    for (const r of receivers) await r.stop();
    for (const clean of cleanups) await clean().catch(() => undefined);
  }
  const passed = error === undefined && results.every((r) => r.passed);
  const output = passed
    ? {}
    : Object.fromEntries(receivers.map((r) => [r.name, r.output()]).filter(([, o]) => o));
  return {
    file: read.file,
    name: scenario.name,
    passed,
    expectations: results,
    ...(error ? {error} : {}),
    org_id: org.id,
    virtual_ms: virtualMs,
    ...(Object.keys(output).length ? {receiver_output: output} : {}),
  };
}
