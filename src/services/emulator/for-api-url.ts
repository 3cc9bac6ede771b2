// Whether an API address is a running emulator's: then its control surface can add what /v1 does not show.
import type {EmulatorControl, FetchLike} from '@svc/client';
import {controlOf, locateEmulator} from './locate.js';

/**
 * The control client of the emulator serving `apiUrl`, if any, found as every command finds its emulator
 * (locate.ts): the one of the data dir named (the dataDir given, SVC_EMULATOR_DATA_DIR) when it serves that
 * address, else any running emulator noted at that address, whatever its data dir.
 */
export async function emulatorControlFor(
  apiUrl: string,
  options: {env: NodeJS.ProcessEnv; dataDir?: string; fetch?: FetchLike},
): Promise<EmulatorControl | undefined> {
  const located = await locateEmulator({env: options.env, dataDir: options.dataDir, apiUrl});
  return located.found ? controlOf(located, options) : undefined;
}
