// `svc emulator clock`: shows the emulator's time, or moves a manual clock.
import type {ClockState} from '../../client/emulator-control.js';
import {usageError} from '../../lib/errors.js';
import {type ConnectOptions, withControl} from './connect.js';

export interface ClockOptions extends ConnectOptions {
  action?: 'advance' | 'set';
  value?: string;
}

export function emulatorClock(options: ClockOptions): Promise<{state: ClockState; apiUrl: string}> {
  if (options.action && !options.value) {
    throw usageError(
      options.action === 'advance'
        ? 'advance needs a duration, like `svc emulator clock advance 10m`'
        : 'set needs a time, like `svc emulator clock set 2030-01-01T00:00:00Z`',
    );
  }
  return withControl(options, async (control, info) => {
    const state =
      options.action === 'advance'
        ? await control.advanceClock(options.value as string)
        : options.action === 'set'
          ? await control.setClock(options.value as string)
          : await control.clock();
    return {state, apiUrl: info.api_url};
  });
}
