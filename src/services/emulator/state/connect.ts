// The emulator whose state a command loads, saves or resets: the running one of the data dir, or, when none
// runs, a short-lived one on the same data dir (or database) that serves only that call and does no
// background work, so a stopped emulator's state can be handled the same way.
import type {EmulatorControl, FetchLike} from '@svc/client';
import {holdsDatabase} from '../../../emulator-layout/runtime.js';
import {noEmulatorError, type UserError} from '../../../lib/errors.js';
import {controlOf, locateEmulator, notFoundError} from '../locate.js';
import {resolveStartOptions, startOrExplain} from '../start.js';

export interface StateTargetOptions {
  /** A stopped emulator's data dir may be new (a state loaded before the first start). */
  create?: boolean;
  dataDir?: string;
  /** For a stopped emulator on PostgreSQL (or SVC_EMULATOR_DATABASE_URL). */
  databaseUrl?: string;
  /** For a stopped emulator: let the file's endpoints use http:// and local hosts (a running one has its own setting). */
  allowLocalEndpoints?: boolean;
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
  fetch?: FetchLike;
}

/** Which emulator a state command acted on, as its output names it. */
export function stateSource(target: {apiUrl: string} | {dataDir: string} | {database: true}): string {
  if ('apiUrl' in target) return `the emulator at ${target.apiUrl}`;
  // A database URL may hold a password: the stopped emulator is named by its storage, never by that URL.
  if ('database' in target) return "the stopped emulator's PostgreSQL database";
  return `the stopped emulator in ${target.dataDir}`;
}

export async function withStateTarget<T>(
  options: StateTargetOptions,
  fn: (control: EmulatorControl, running: boolean, source: string) => Promise<T>,
): Promise<T> {
  const located = await locateEmulator({env: options.env, dataDir: options.dataDir});
  if (located.found)
    return fn(controlOf(located, options), true, stateSource({apiUrl: located.info.api_url}));
  // The emulator behind the address in use must run; a stopped one is reached by its --data-dir. And a data dir
  // whose runtime file was not believed is not opened beside whatever may be running there.
  if (located.lookedFor.api_url !== undefined || located.reasons.length > 0) throw notFoundError(located);
  const dataDir = located.lookedFor.data_dir;
  const databaseUrl = options.databaseUrl ?? (options.env.SVC_EMULATOR_DATABASE_URL || undefined);
  // Reading or emptying a state that is not there would only make an empty one and hide a wrong --data-dir.
  if (!options.create && !databaseUrl && !holdsDatabase(dataDir)) throw notRunningNorSaved(dataDir);
  const start = resolveStartOptions(
    {
      dataDir,
      databaseUrl,
      port: 0,
      host: '127.0.0.1',
      allowLocalEndpoints: options.allowLocalEndpoints,
      env: options.env,
    },
    options.log,
  );
  const emulator = await startOrExplain({...start, serveOnly: true});
  try {
    // This module's own control client, not the emulator's: the CLI's error mapper knows its errors.
    const source = stateSource(databaseUrl ? {database: true} : {dataDir});
    return await fn(
      controlOf({info: {api_url: emulator.apiUrl, admin_token: emulator.adminToken}}),
      false,
      source,
    );
  } finally {
    await emulator.stop();
  }
}

function notRunningNorSaved(dataDir: string): UserError {
  return noEmulatorError(`no emulator is running for the data dir ${dataDir}, and it holds no saved state`, [
    'Pass the --data-dir the emulator was started with (or set SVC_EMULATOR_DATA_DIR)',
    'An emulator started with --in-memory keeps its state in a folder of its own: its ready line names it (data_dir)',
  ]);
}
