// Entry of the CLI bundle (scripts/bundle-cli.js): oclif and every command in one script, so a command
// starts without resolving and compiling a few hundred modules. bin/run.js loads it through loader.ts.
import {readFileSync} from 'node:fs';
import {userInfo} from 'node:os';
import {join} from 'node:path';
import {execute, type Interfaces} from '@oclif/core';
import {COMMANDS} from './commands.js';
// How commands open their session: in the bundle the command list is getters, so it is handed in here too.
import './session.js';

export {COMMANDS, execute};

/** The command id the leading words of argv name, when it is one of svc's own (`keys list` -> keys:list). */
export function ownCommandId(argv: readonly string[]): string | undefined {
  const words: string[] = [];
  for (const arg of argv) {
    if (arg.startsWith('-')) break;
    words.push(arg);
    const id = words.join(':');
    if (Object.hasOwn(COMMANDS, id)) return id;
  }
  return undefined;
}

/**
 * Runs the CLI from the package at `root`. For one of svc's own commands the plugins are not loaded: they
 * contribute only their own commands (help, autocomplete) and no hooks these commands would run, and each
 * costs its package.json and manifest read on every start.
 */
export function run(root: string, argv: string[]): Promise<unknown> {
  nameShellForUnknownUser();
  const pjson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Interfaces.PJSON;
  if (ownCommandId(argv) !== undefined) pjson.oclif = {...pjson.oclif, plugins: []};
  else if (!process.stdin.isTTY) {
    // Nobody can answer the not-found plugin's question without a terminal: the root hook
    // (hooks/not-found.ts) names the closest command instead, as a usage error.
    const plugins = (pjson.oclif.plugins ?? []).filter((p) => p !== '@oclif/plugin-not-found');
    pjson.oclif = {...pjson.oclif, plugins};
  }
  return execute({args: argv, loadOptions: {root, pjson}});
}

/**
 * oclif reads the login shell from the OS when SHELL is unset, and for a user the OS has no entry for (a container
 * run under an arbitrary uid, as Kubernetes and OpenShift do) that lookup throws, so no command would run. Such a
 * user's shell is named the POSIX one.
 */
function nameShellForUnknownUser(env: NodeJS.ProcessEnv = process.env): void {
  if (env.SHELL !== undefined) return;
  try {
    userInfo();
  } catch {
    env.SHELL = '/bin/sh';
  }
}
