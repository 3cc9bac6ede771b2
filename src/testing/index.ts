// `@svc/cli/testing`: the emulator for test runners. One emulator for the whole run (startTestEmulator, or the
// vitest global setup in ./vitest-setup.ts), and per test file an org of its own with its own clock, a key, an
// endpoint and a real receiver (createOrgFixture, or setupSvcOrg in ./vitest.ts): files share the emulator and never
// see each other's events or time. Everything here is AsyncDisposable, and a run that is stopped or interrupted
// (SIGINT, SIGTERM) leaves no runtime file or data dir behind.
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {EmulatorControl, readRuntimeFile} from '@svc/client';
import {atExit} from '../at-exit.js';
import {EVENT_TYPES} from '../definitions.js';
// The emulator's entry and nothing behind it (loading it defines Symbol.asyncDispose where the runtime has
// none, for the `await using` of what this entry hands out).
import {
  type CreatedKey,
  type CreatedWebhook,
  type EventType,
  type Org,
  type RunningEmulator,
  type StartEmulatorOptions,
  startEmulator,
} from '../emulator/index.js';
import {type EmulatorConnection, orgMakingConnection} from './connection.js';
import {OrgControl} from './org-control.js';
import {startTestReceiver, type TestReceiver} from './receiver.js';

// Every record a test holds, by name: the types the control client answers with, as the emulator's entry hands
// them out (one list for both entries).
export type * from '../records.js';
export type {EmulatorConnection} from './connection.js';
export {OrgControl} from './org-control.js';
// Scenario files (docs/scenarios.md) from a JS suite: the runner `svc scenario run` uses for each file.
export {
  type RunScenarioOptions,
  readScenarioFile,
  runScenario,
  ScenarioFileError,
} from '../scenario/run.js';
export type {ExpectationResult, FileProblem, ScenarioResult} from '../scenario/types.js';
export {
  type ReceivedDelivery,
  startTestReceiver,
  type TestReceiver,
  type TestReceiverOptions,
} from './receiver.js';

export interface TestEmulator extends AsyncDisposable {
  /** The emulator's address (its /v1 API and /_emulator control surface). */
  readonly url: string;
  /** What to hand the run's test files: the address and a token that only makes orgs. */
  readonly connection: EmulatorConnection;
  /** The emulator-wide control client, with the admin token (its default org and the emulator's clock). */
  readonly control: EmulatorControl;
  readonly emulator: RunningEmulator;
  stop(): Promise<void>;
}

/**
 * Starts an emulator for a test run: in memory, on a free loopback port (or the `port` given), on a manual clock
 * (time moves only when a test moves it; each org's own clock moves with `advanceClock(d, {org})`), delivering to
 * loopback receivers. Its data dir is removed when it stops, when the process exits, and on SIGINT or SIGTERM.
 */
export async function startTestEmulator(
  options: Omit<StartEmulatorOptions, 'dataDir' | 'inMemory'> = {},
): Promise<TestEmulator> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-testing-'));
  const removeSync = () => rmSync(dataDir, {recursive: true, force: true});
  const forget = atExit(removeSync);
  let emulator: RunningEmulator;
  try {
    emulator = await startEmulator({
      port: 0,
      clock: 'manual',
      allowLocalEndpoints: true,
      ...options,
      dataDir,
      inMemory: true,
    });
  } catch (err) {
    forget();
    removeSync();
    throw err;
  }
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= emulator.stop().finally(() => {
      forget();
      removeSync();
    });
    return stopping;
  };
  let connection: EmulatorConnection;
  try {
    connection = await orgMakingConnection(emulator.control);
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    url: emulator.apiUrl,
    connection,
    control: emulator.control,
    emulator,
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

/**
 * A control client of the run's emulator that only makes orgs (createOrgFixture makes each file's with it): from
 * a connection (what the vitest global setup provides), else from the running emulator's emulator.json in
 * SVC_EMULATOR_DATA_DIR (under `svc emulator exec -- node --test …`).
 */
export async function connectTestEmulator(connection?: EmulatorConnection): Promise<EmulatorControl> {
  if (connection) return new EmulatorControl({url: connection.url, adminToken: connection.token});
  const dir = process.env.SVC_EMULATOR_DATA_DIR;
  const runtime = dir ? await readRuntimeFile(dir) : undefined;
  if (!runtime) {
    throw new Error(
      'connectTestEmulator found no emulator: pass the connection the global setup provides, or run the tests ' +
        'under `svc emulator exec`, which sets SVC_EMULATOR_DATA_DIR',
    );
  }
  const made = await orgMakingConnection(
    new EmulatorControl({url: runtime.api_url, adminToken: runtime.admin_token}),
  );
  return new EmulatorControl({url: made.url, adminToken: made.token});
}

/** What a test file holds: its own org (and clock), a key of it, an endpoint of it and the receiver behind it. */
export interface OrgFixture extends AsyncDisposable {
  /** The control client bound to this org: clock moves, triggers, keys and endpoints act on it alone. */
  readonly control: OrgControl;
  readonly org: Org;
  /** An API key of the org (secret included) for calls to /v1. */
  readonly key: CreatedKey;
  /** The org's endpoint, posting to `receiver` (signing secret included). */
  readonly endpoint: CreatedWebhook;
  readonly receiver: TestReceiver;
  /** Deletes the org (and everything of it) and closes the receiver. */
  dispose(): Promise<void>;
}

export interface OrgFixtureOptions {
  /** The org's name (default: a fresh one). */
  name?: string;
  /** The events the endpoint subscribes to (default: all). */
  events?: readonly EventType[];
  /** What the receiver answers (default 200). */
  respond?: Parameters<TestReceiver['respondWith']>[0];
}

/**
 * An org of its own for one test file, with a key, an endpoint and a receiver; dispose of it after the file. Its
 * control client carries the org's own token: the emulator refuses it (403 `forbidden`) anything of another
 * org or of the whole emulator, so one file cannot move, read or reset another's.
 */
export async function createOrgFixture(
  emulator: EmulatorControl | EmulatorConnection,
  options: OrgFixtureOptions = {},
): Promise<OrgFixture> {
  const maker = emulator instanceof EmulatorControl ? emulator : await connectTestEmulator(emulator);
  const {org, token} = await maker.createControlToken({
    new_org: options.name ?? `test ${Date.now().toString(36)}`,
  });
  if (!org) throw new Error('createOrgFixture: the emulator made no org');
  const bound = new OrgControl(new EmulatorControl({url: maker.url, adminToken: token}), org.id);
  const receiver = await startTestReceiver();
  try {
    if (options.respond !== undefined) receiver.respondWith(options.respond);
    const key = await bound.createKey({name: 'test'});
    const endpoint = await bound.createWebhook({
      url: receiver.url,
      events: [...(options.events ?? EVENT_TYPES)],
    });
    receiver.setSecret(endpoint.secret);
    let disposing: Promise<void> | undefined;
    const dispose = () => {
      disposing ??= (async () => {
        await receiver.close();
        await bound.emulator.deleteOrg(org.id).catch(() => undefined);
      })();
      return disposing;
    };
    return {control: bound, org, key, endpoint, receiver, dispose, [Symbol.asyncDispose]: dispose};
  } catch (err) {
    await receiver.close();
    await bound.emulator.deleteOrg(org.id).catch(() => undefined);
    throw err;
  }
}
