// Finds the running emulator a command means and opens its control client: the one of the data dir named
// (--data-dir, SVC_EMULATOR_DATA_DIR), else the one serving the API address in use (--api-url, SVC_API_URL, the
// latest login), else the default data dir's.
import {
  DEFAULT_API_URL,
  EmulatorControl,
  isProcessAlive,
  readRuntimeFile,
  type RuntimeInfo,
} from '@svc/client';
import {defaultFileStore, resolveStoredApiUrl} from '../../auth/resolve.js';
import {UserError} from '../../lib/errors.js';
import {emulatorDataDir} from '../../lib/paths.js';
import {runningEmulatorFor} from './registry.js';

export interface ConnectOptions {
  dataDir?: string;
  /** --api-url of the command, when it has one. */
  apiUrl?: string;
  env: NodeJS.ProcessEnv;
  fetch?: typeof fetch;
}

export function notRunning(dataDir: string): UserError {
  return new UserError(`no emulator is running for the data dir ${dataDir}`, {
    code: 'emulator_not_running',
    suggestions: [
      'Start one with `svc emulator start` (or pass the --data-dir it was started with)',
      'Or set SVC_EMULATOR_DATA_DIR to its data dir',
    ],
  });
}

export function noEmulatorServes(apiUrl: string): UserError {
  return new UserError(`no running emulator serves ${apiUrl}`, {
    code: 'emulator_not_running',
    suggestions: [
      `Start one there with \`svc emulator start --port ${new URL(apiUrl).port || '80'}\``,
      'Or pass the --data-dir of the emulator you mean (or set SVC_EMULATOR_DATA_DIR)',
    ],
  });
}

/** The data dir named for this command, which wins over any address. */
export function namedDataDir(options: Pick<ConnectOptions, 'dataDir' | 'env'>): string | undefined {
  return options.dataDir ?? (options.env.SVC_EMULATOR_DATA_DIR || undefined);
}

/**
 * The API address a command uses, when it is not the service's default (an emulator never serves that): what
 * `svc org` would talk to.
 */
export async function addressInUse(
  options: Pick<ConnectOptions, 'apiUrl' | 'env'>,
): Promise<string | undefined> {
  const apiUrl = await resolveStoredApiUrl({
    env: options.env,
    flags: {apiUrl: options.apiUrl},
    fileStore: defaultFileStore(options.env),
  }).catch(() => undefined);
  return apiUrl === undefined || apiUrl === DEFAULT_API_URL ? undefined : apiUrl;
}

/** Where a command looked when no emulator ran there: the address in use, or the data dir. */
export async function lookedFor(options: ConnectOptions): Promise<{data_dir: string; api_url?: string}> {
  const named = namedDataDir(options);
  const apiUrl = named === undefined ? await addressInUse(options) : undefined;
  const dataDir = named ?? emulatorDataDir(options.env);
  return apiUrl === undefined ? {data_dir: dataDir} : {data_dir: dataDir, api_url: apiUrl};
}

export async function findRunning(options: ConnectOptions): Promise<{info: RuntimeInfo; dataDir: string}> {
  const named = namedDataDir(options);
  const apiUrl = named === undefined ? await addressInUse(options) : undefined;
  if (apiUrl !== undefined) {
    const found = await runningEmulatorFor(apiUrl, options.env);
    if (!found) throw noEmulatorServes(apiUrl);
    return found;
  }
  const dataDir = named ?? emulatorDataDir(options.env);
  const info = await readRuntimeFile(dataDir);
  if (!info || !isProcessAlive(info.pid)) throw notRunning(dataDir);
  return {info, dataDir};
}

export async function connectControl(
  options: ConnectOptions,
): Promise<{control: EmulatorControl; info: RuntimeInfo}> {
  const {info} = await findRunning(options);
  return {
    control: new EmulatorControl({url: info.api_url, adminToken: info.admin_token, fetch: options.fetch}),
    info,
  };
}

/** A result with the API address of the emulator it came from, which the command names beside it. */
export interface At<T> {
  value: T;
  apiUrl: string;
}

/** Like withControl, and says which emulator acted: the address a command prints its result with. */
export async function withControlAt<T>(
  options: ConnectOptions,
  fn: (control: EmulatorControl, info: RuntimeInfo) => Promise<T>,
): Promise<At<T>> {
  const {control, info} = await connectControl(options);
  return {value: await fn(control, info), apiUrl: info.api_url};
}

/** Runs one control call against the running emulator; its EmulatorControlError reaches the CLI's error mapper. */
export async function withControl<T>(
  options: ConnectOptions,
  fn: (control: EmulatorControl, info: RuntimeInfo) => Promise<T>,
): Promise<T> {
  const {control, info} = await connectControl(options);
  return fn(control, info);
}
