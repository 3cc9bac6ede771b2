// Whether an API address is a running emulator's: then its control surface can add what /v1 does not show.
import type {EmulatorControl} from '../../client/emulator-control.js';
import {isProcessAlive, readRuntimeFile} from '../../client/emulator-runtime.js';
import {LOOPBACK_NAMES} from '../../definitions.js';
import {emulatorDataDir} from '../../lib/paths.js';

const LOOPBACK = new Set<string>(LOOPBACK_NAMES);

/** Same scheme and port, and the same host (every loopback name counts as one). */
export function sameApiAddress(a: string, b: string): boolean {
  try {
    const x = new URL(a);
    const y = new URL(b);
    const host = (h: string) => (LOOPBACK.has(h) ? 'loopback' : h);
    return x.protocol === y.protocol && x.port === y.port && host(x.hostname) === host(y.hostname);
  } catch {
    return false;
  }
}

/** The control client of the emulator serving `apiUrl` (found through SVC_EMULATOR_DATA_DIR or the default data dir), if any. */
export async function emulatorControlFor(
  apiUrl: string,
  options: {env: NodeJS.ProcessEnv; dataDir?: string; fetch?: typeof fetch},
): Promise<EmulatorControl | undefined> {
  const info = await readRuntimeFile(options.dataDir ?? emulatorDataDir(options.env));
  if (!info || !isProcessAlive(info.pid) || !sameApiAddress(info.api_url, apiUrl)) return undefined;
  const {EmulatorControl} = await import('../../client/emulator-control.js');
  return new EmulatorControl({url: info.api_url, adminToken: info.admin_token, fetch: options.fetch});
}
