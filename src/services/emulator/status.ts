// `svc emulator status`: whether an emulator runs for a data dir, where, and on which clock.
import {EmulatorControl} from '../../client/emulator-control.js';
import {type ConnectOptions, findRunning} from './connect.js';

export interface EmulatorStatus {
  running: true;
  api_url: string;
  account_url: string;
  data_dir: string;
  pid: number;
  org_id: string;
  clock: {now: string; mode: 'real' | 'manual'};
}

export async function emulatorStatus(options: ConnectOptions): Promise<EmulatorStatus> {
  const {info, dataDir} = await findRunning(options);
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
