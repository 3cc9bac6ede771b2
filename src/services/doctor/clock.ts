// The clock lane: this machine's clock against the API's, measured against the signature tolerance, and an
// emulator's manual clock against the wall clock.
import {SIGNATURE_TOLERANCE_SECONDS} from '../../definitions.js';
import {check, type DoctorCheck} from './check.js';

/** Skew worth a warning: a tenth of the tolerance is gone before any network delay. */
export const CLOCK_WARN_SECONDS = SIGNATURE_TOLERANCE_SECONDS / 10;

export interface ApiClockInput {
  apiUrl: string;
  fetch: typeof fetch;
  nowMs: () => number;
  timeoutMs: number;
  /** The API address is an emulator's on a manual clock: its Date header follows that clock. */
  manualEmulator?: boolean;
}

function seconds(ms: number): string {
  const s = Math.round(Math.abs(ms) / 1000);
  return s < 120 ? `${s} s` : s < 7200 ? `${Math.round(s / 60)} min` : `${Math.round(s / 3600)} h`;
}

/** The API's Date header (whole seconds) against the midpoint of this machine's clock around the request. */
export async function checkApiClock(input: ApiClockInput): Promise<DoctorCheck> {
  if (input.manualEmulator) {
    return check(
      'api_clock',
      'clock',
      'ok',
      `${input.apiUrl} is an emulator on a manual clock; see emulator_clock`,
    );
  }
  const before = input.nowMs();
  let date: string | null;
  try {
    const res = await input.fetch(new URL('/', input.apiUrl), {
      method: 'HEAD',
      redirect: 'manual',
      signal: AbortSignal.timeout(input.timeoutMs),
    });
    date = res.headers.get('date');
  } catch (err) {
    const why =
      err instanceof Error && err.name === 'TimeoutError'
        ? 'no answer in time'
        : String((err as Error).cause ?? (err as Error).message);
    return check(
      'api_clock',
      'clock',
      'warn',
      `could not reach ${input.apiUrl} to compare clocks (${why})`,
      'Check the address (svc auth status) and the network; an emulator must be running to be reached',
    );
  }
  const after = input.nowMs();
  const serverMs = date ? Date.parse(date) : Number.NaN;
  if (Number.isNaN(serverMs)) {
    return check(
      'api_clock',
      'clock',
      'warn',
      `${input.apiUrl} sent no usable Date header`,
      'Compare clocks by hand: date -u',
    );
  }
  // The header drops the milliseconds: up to a second of the difference is only that.
  const skewMs = serverMs - (before + after) / 2;
  const magnitude = Math.max(0, Math.abs(skewMs) - 1000);
  const direction = skewMs > 0 ? 'behind' : 'ahead of';
  const detail = `this machine's clock is ${seconds(magnitude)} ${direction} ${input.apiUrl}'s (signature tolerance ${SIGNATURE_TOLERANCE_SECONDS} s)`;
  const fix = 'Turn on time synchronisation (timedatectl set-ntp true; on macOS, Date & Time settings)';
  if (magnitude >= SIGNATURE_TOLERANCE_SECONDS * 1000) {
    return check('api_clock', 'clock', 'fail', `${detail}: receivers here reject every signature`, fix);
  }
  if (magnitude >= CLOCK_WARN_SECONDS * 1000) return check('api_clock', 'clock', 'warn', detail, fix);
  return check('api_clock', 'clock', 'ok', detail);
}

/** An emulator's clock as its control surface reports it, against this machine's. */
export function checkEmulatorClock(input: {
  apiUrl: string;
  state: {mode: string; now: string};
  nowMs: number;
}): DoctorCheck {
  if (input.state.mode !== 'manual') {
    return check('emulator_clock', 'clock', 'ok', `the emulator at ${input.apiUrl} runs on the real clock`);
  }
  const offsetMs = Date.parse(input.state.now) - input.nowMs;
  const where = `the emulator at ${input.apiUrl} runs a manual clock, ${seconds(offsetMs)} ${offsetMs >= 0 ? 'ahead of' : 'behind'} the wall clock`;
  if (Math.abs(offsetMs) <= SIGNATURE_TOLERANCE_SECONDS * 1000)
    return check('emulator_clock', 'clock', 'ok', where);
  return check(
    'emulator_clock',
    'clock',
    'warn',
    `${where}: events, delivery times and its Date header carry its time; with --signature-clock emulator receivers reject its signatures`,
    'Expected in a test run; otherwise set it back: svc emulator clock set <now in ISO 8601>',
  );
}
