// Whether an API address is a running emulator's: then its control surface can add what /v1 does not show.
import {type EmulatorControl, isProcessAlive, readRuntimeFile, type RuntimeInfo} from '@svc/client';
import {runningEmulatorFor, sameApiAddress} from './registry.js';

/**
 * The control client of the emulator serving `apiUrl`, if any: the one of the data dir named (the dataDir given,
 * SVC_EMULATOR_DATA_DIR), else any running emulator noted at that address, whatever its data dir.
 */
export async function emulatorControlFor(
  apiUrl: string,
  options: {env: NodeJS.ProcessEnv; dataDir?: string; fetch?: typeof fetch},
): Promise<EmulatorControl | undefined> {
  const named = options.dataDir ?? (options.env.SVC_EMULATOR_DATA_DIR || undefined);
  let info: RuntimeInfo | undefined;
  if (named !== undefined) {
    info = await readRuntimeFile(named);
    if (!info || !isProcessAlive(info.pid) || !sameApiAddress(info.api_url, apiUrl)) return undefined;
  } else {
    info = (await runningEmulatorFor(apiUrl, options.env))?.info;
    if (!info) return undefined;
  }
  const {EmulatorControl} = await import('@svc/client');
  return new EmulatorControl({url: info.api_url, adminToken: info.admin_token, fetch: options.fetch});
}
