// `svc emulator status`: whether an emulator runs for a data dir, where, and on which clock.
import type {FetchLike} from '@svc/client';
import type {ClockMode} from '../../definitions.js';
import {controlOf, type LocateOptions, locateEmulator} from './locate.js';

/** No emulator runs for the data dir: an answer, not a failure. */
export interface NotRunning {
  running: false;
  data_dir: string;
  /** The API address in use, when no data dir was named: no running emulator serves it. */
  api_url?: string;
  /** Why a runtime file seen on the way was not believed, one sentence each (only when there was one). */
  reasons?: string[];
}

export interface EmulatorStatus {
  running: true;
  api_url: string;
  account_url: string;
  data_dir: string;
  pid: number;
  org_id: string;
  clock: {now: string; mode: ClockMode; scale?: number};
  /** Only when the failed-authentication limit is off (`--no-rate-limit`). */
  rate_limit?: 'off';
}

export async function emulatorStatus(
  options: LocateOptions & {fetch?: FetchLike},
): Promise<EmulatorStatus | NotRunning> {
  const located = await locateEmulator(options);
  if (!located.found) {
    return {
      running: false,
      ...located.lookedFor,
      ...(located.reasons.length > 0 ? {reasons: located.reasons} : {}),
    };
  }
  const {info, dataDir} = located;
  const control = controlOf(located, options);
  const [health, clock] = await Promise.all([control.health(), control.clock()]);
  return {
    running: true,
    api_url: info.api_url,
    account_url: info.account_url,
    data_dir: dataDir,
    pid: info.pid,
    org_id: health.org_id,
    clock,
    ...(health.rate_limit ? {rate_limit: health.rate_limit} : {}),
  };
}
