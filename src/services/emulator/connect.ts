// Finds the running emulator of a data dir (through its emulator.json) and opens its control client.
import {EmulatorControl, isProcessAlive, readRuntimeFile, type RuntimeInfo} from '@svc/client';
import {UserError} from '../../lib/errors.js';
import {emulatorDataDir} from '../../lib/paths.js';

export interface ConnectOptions {
  dataDir?: string;
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

export async function findRunning(options: ConnectOptions): Promise<{info: RuntimeInfo; dataDir: string}> {
  const dataDir = options.dataDir ?? emulatorDataDir(options.env);
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

/** Runs one control call against the running emulator; its EmulatorControlError reaches the CLI's error mapper. */
export async function withControl<T>(
  options: ConnectOptions,
  fn: (control: EmulatorControl, info: RuntimeInfo) => Promise<T>,
): Promise<T> {
  const {control, info} = await connectControl(options);
  return fn(control, info);
}
