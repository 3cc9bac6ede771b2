// `svc emulator status`: whether an emulator runs for a data dir, where, and on which clock.
import {EmulatorControl} from '@svc/client';
import {UserError} from '../../lib/errors.js';
import {type ConnectOptions, findRunning, lookedFor} from './connect.js';

/** No emulator runs for the data dir: an answer, not a failure. */
export interface NotRunning {
  running: false;
  data_dir: string;
  /** The API address in use, when no data dir was named: no running emulator serves it. */
  api_url?: string;
}

export interface EmulatorStatus {
  running: true;
  api_url: string;
  account_url: string;
  data_dir: string;
  pid: number;
  org_id: string;
  clock: {now: string; mode: 'real' | 'manual'};
}

export async function emulatorStatus(options: ConnectOptions): Promise<EmulatorStatus | NotRunning> {
  const found = await findRunning(options).catch((err: unknown) => {
    if (err instanceof UserError && err.code === 'emulator_not_running') return undefined;
    throw err;
  });
  if (!found) return {running: false, ...(await lookedFor(options))};
  const {info, dataDir} = found;
  const control = new EmulatorControl({
    url: info.api_url,
    adminToken: info.admin_token,
    fetch: options.fetch,
  });
  const [health, clock] = await Promise.all([control.health(), control.clock()]);
  return {
    running: true,
    api_url: info.api_url,
    account_url: info.account_url,
    data_dir: dataDir,
    pid: info.pid,
    org_id: health.org_id,
    clock,
  };
}
