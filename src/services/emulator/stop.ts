// `svc emulator stop`: asks the running emulator to shut down (SIGTERM) and waits until it has.
import {setTimeout as sleep} from 'node:timers/promises';
import {isProcessAlive} from '../../emulator-layout/runtime.js';
import {NO_EMULATOR_CODE, UserError} from '../../lib/errors.js';
import {type ConnectOptions, findRunning, lookedFor} from './connect.js';

export interface StopOptions extends ConnectOptions {
  /** How long to wait for a clean shutdown. Default 15 s. */
  timeoutMs?: number;
}

export async function stopEmulator(
  options: StopOptions,
): Promise<
  | {stopped: true; pid: number; data_dir: string; api_url: string}
  | {stopped: false; data_dir: string; api_url?: string}
> {
  const found = await findRunning(options).catch((err: unknown) => {
    if (err instanceof UserError && err.code === NO_EMULATOR_CODE) return undefined;
    throw err;
  });
  // Nothing runs there: what stop is for is already so.
  if (!found) return {stopped: false, ...(await lookedFor(options))};
  const {info, dataDir} = found;
  try {
    process.kill(info.pid, 'SIGTERM');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') {
      throw new UserError(`could not signal the emulator (pid ${info.pid}): ${(err as Error).message}`);
    }
  }
  const deadline = Date.now() + (options.timeoutMs ?? 15_000);
  while (isProcessAlive(info.pid)) {
    if (Date.now() > deadline) {
      throw new UserError(
        `the emulator (pid ${info.pid}) did not stop within ${(options.timeoutMs ?? 15_000) / 1000} s`,
        {
          suggestions: [`Stop it by force with \`kill -9 ${info.pid}\``],
        },
      );
    }
    await sleep(50);
  }
  return {stopped: true, pid: info.pid, data_dir: dataDir, api_url: info.api_url};
}
