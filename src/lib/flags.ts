// Flags that several commands share, declared once: the same name, value hint and help everywhere. A command
// that means something more specific passes its own description, e.g. `apiUrlFlag({description: '…'})`.
import {Flags} from '@oclif/core';

/** The API address a command talks to; resolved with SVC_API_URL and the stored logins in src/auth. */
export const apiUrlFlag = Flags.custom<string>({
  description: 'API address (default: SVC_API_URL, then https://api.svc.dev)',
  helpValue: 'URL',
});

/** The data dir of a running emulator, where its emulator.json tells the control commands how to reach it. */
export const dataDirFlag = Flags.custom<string>({
  description: 'data dir of the emulator (default: SVC_EMULATOR_DATA_DIR, then the user data dir)',
  helpValue: 'DIR',
});

/** Prints the stack of an error (and of its causes); SVC_DEBUG=1 does the same. */
export const debugFlag = Flags.boolean({
  description: 'print the stack of an error (or set SVC_DEBUG=1)',
  helpGroup: 'GLOBAL',
});
