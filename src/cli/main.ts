// Entry of the CLI bundle (scripts/bundle-cli.js): oclif and every command in one script, so a command
// starts without resolving and compiling a few hundred modules. bin/run.js loads it through loader.ts.
export {execute} from '@oclif/core';
export {COMMANDS} from './commands.js';
