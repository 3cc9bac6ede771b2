// Flags that several commands share, declared once: the same name, value hint and help everywhere. A command
// that means something more specific passes its own description, e.g. `apiUrlFlag({description: '…'})`.
import {Errors, Flags} from '@oclif/core';
import {
  CLOCK_SETTING_RULE,
  type ClockSetting,
  parseClockSetting,
  SIGNATURE_CLOCKS,
  type SignatureClock,
} from '../definitions.js';
import {ExitCode} from './exit-codes.js';

/** The API address a command talks to; resolved with SVC_API_URL and the stored logins in src/auth. */
export const apiUrlFlag = Flags.custom<string>({
  description: 'API address (default: SVC_API_URL, then the address of the latest svc login)',
  helpValue: 'URL',
});

/** The data dir of a running emulator, where its emulator.json tells the control commands how to reach it. */
export const dataDirFlag = Flags.custom<string>({
  description: 'data dir of the emulator (default: SVC_EMULATOR_DATA_DIR, then the user data dir)',
  helpValue: 'DIR',
});

/** The org a control command acts on (test files each use their own); default: the emulator's default org. */
export const orgFlag = Flags.custom<string>({
  description: "org to act on (org_…); default: the emulator's default org",
  helpValue: 'ORG_ID',
});

// What `svc emulator start` and `svc emulator exec` both take to set up an emulator.

/** A real PostgreSQL for the emulator's state instead of the embedded one. */
export const databaseUrlFlag = Flags.custom<string>({
  description: 'use a real PostgreSQL instead of the embedded one (or set SVC_EMULATOR_DATABASE_URL)',
  helpValue: 'postgres://…',
});

/** The emulator's clock: real time, time that moves only when told, or time that runs N times as fast. */
export const emulatorClockFlag = Flags.custom<ClockSetting>({
  description:
    'manual: time moves only with `svc emulator clock`; scaled:N: time runs N times as fast as real time (scaled:60 lives a day of retries in 24 minutes), signatures still carrying the real time',
  helpValue: 'real|manual|scaled:N',
  default: 'real',
  async parse(input) {
    if (!parseClockSetting(input)) {
      throw new Errors.CLIError(`must be ${CLOCK_SETTING_RULE}, not ${input}`, {exit: ExitCode.usage});
    }
    return input as ClockSetting;
  },
});

/** Seeded delivery chaos for every endpoint: duplicates, events overtaking others, delays. */
export const emulatorChaosFlag = Flags.custom<string>({
  description:
    'deliver the way production may: duplicates, events overtaking others and delays, chosen from the seed ' +
    '(e.g. duplicate=0.2,reorder=0.3,delay=0-5s,seed=42)',
  helpValue: 'SPEC',
});

/** Lifts the endpoint URL rules (https, public host) for receivers on this machine or network. */
export const allowLocalEndpointsFlag = Flags.boolean({
  description: 'let webhook endpoints use http:// and loopback or private hosts (local development only)',
});

/** Prints the stack of an error (and of its causes); SVC_DEBUG=1 does the same. */
export const debugFlag = Flags.boolean({
  description: 'print the stack of an error (or set SVC_DEBUG=1)',
  helpGroup: 'GLOBAL',
});

/** Which time delivery signatures carry; matters only with --clock manual. */
export const signatureClockFlag = Flags.custom<SignatureClock>({
  description:
    "time in each delivery's Svc-Signature t: real (receivers on a real clock accept it) or emulator (its clock, for receivers whose tests share it)",
  options: [...SIGNATURE_CLOCKS],
  default: 'real',
});
