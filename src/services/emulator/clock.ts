// `svc emulator clock`: shows the emulator's time (or one org's), or moves a manual clock (or one org's own clock).
import type {ClockState, OrgClockState} from '@svc/client';
import type {Duration} from '../../definitions.js';
import {usageError} from '../../lib/errors.js';
import {parseDuration} from '../../schemas/duration.js';
import {parseIsoTime} from '../../schemas/timestamp.js';
import {type ConnectOptions, withControl} from './connect.js';

export interface ClockOptions extends ConnectOptions {
  action?: 'advance' | 'set';
  value?: string;
  /** An org (`org_…`) whose own clock is read or moved instead of the emulator's. */
  org?: string;
}

export function emulatorClock(
  options: ClockOptions,
): Promise<{state: ClockState | OrgClockState; apiUrl: string}> {
  if (options.action && !options.value) {
    throw usageError(
      options.action === 'advance'
        ? 'advance needs a duration, like `svc emulator clock advance 10m`'
        : 'set needs a time, like `svc emulator clock set 2030-01-01T00:00:00Z`',
    );
  }
  // What was typed is checked here, before any emulator is looked for: a malformed value is a usage error, the
  // same exit code wherever it is found (the emulator's own check stays for what only it knows).
  if (options.action === 'advance' && parseDuration(options.value as string) === undefined) {
    throw usageError(
      `${JSON.stringify(options.value)} is not a duration: a number and a unit (ms, s, m, h, d), like 90s, 10m, 31d or 1h30m`,
    );
  }
  const time = options.action === 'set' ? parseIsoTime(options.value as string) : undefined;
  if (typeof time === 'string') throw usageError(`the time ${JSON.stringify(options.value)} ${time}`);
  const org = options.org;
  return withControl(options, async (control, info) => {
    // A duration as typed: the emulator checks it and says what it takes.
    const duration = options.value as Duration;
    const state =
      options.action === 'advance'
        ? await (org ? control.advanceClock(duration, {org}) : control.advanceClock(duration))
        : options.action === 'set'
          ? await (org
              ? control.setClock(options.value as string, {org})
              : control.setClock(options.value as string))
          : await (org ? control.orgClock(org) : control.clock());
    return {state, apiUrl: info.api_url};
  });
}
