// Flags that several commands share, declared once: the same name, value hint and help everywhere. A command
// that means something more specific passes its own description, e.g. `apiUrlFlag({description: '…'})`.
import {Flags} from '@oclif/core';
import {SIGNATURE_CLOCKS, type SignatureClock} from '../definitions.js';

/** The API address a command talks to; resolved with SVC_API_URL and the stored logins in src/auth. */
export const apiUrlFlag = Flags.custom<string>({
  description:
    'API address (default: SVC_API_URL, then the address of the latest `svc login`, then https://api.svc.dev)',
  helpValue: 'URL',
});

/** The data dir of a running emulator, where its emulator.json tells the control commands how to reach it. */
export const dataDirFlag = Flags.custom<string>({
  description: 'data dir of the emulator (default: SVC_EMULATOR_DATA_DIR, then the user data dir)',
  helpValue: 'DIR',
});

// What `svc emulator start` and `svc emulator exec` both take to set up an emulator.

/** A real PostgreSQL for the emulator's state instead of the embedded one. */
export const databaseUrlFlag = Flags.custom<string>({
  description: 'use a real PostgreSQL instead of the embedded one (or set SVC_EMULATOR_DATABASE_URL)',
  helpValue: 'postgres://…',
});

/** The emulator's clock: real time, or time that moves only when told. */
export const emulatorClockFlag = Flags.custom<'real' | 'manual'>({
  description: 'manual: time moves only with `svc emulator clock`',
  options: ['real', 'manual'],
  default: 'real',
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
