// How a person runs svc from where they are, so that every command the tool prints runs as printed.
import {existsSync, realpathSync} from 'node:fs';
import {delimiter, dirname, join, relative, isAbsolute} from 'node:path';

export interface InvocationContext {
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** The script this process runs (process.argv[1]). */
  script: string | undefined;
  platform?: NodeJS.Platform;
}

function realpathOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * `svc` when it is on PATH (installed or linked); else `npx svc` inside the project folder, where npx finds
 * the package's own bin; else node with the absolute path of the running script, which works from anywhere.
 */
export function svcCommand(context: InvocationContext): string {
  // Started by `npx svc` (npm exec): that worked from here, and the PATH npx set up is not the person's.
  if (context.env.npm_command === 'exec') return 'npx svc';
  const names = (context.platform ?? process.platform) === 'win32' ? ['svc.cmd', 'svc.exe'] : ['svc'];
  for (const dir of (context.env.PATH ?? '').split(delimiter)) {
    if (dir && names.some((name) => existsSync(join(dir, name)))) return 'svc';
  }
  if (!context.script) return 'svc';
  const script = realpathOrSelf(context.script);
  const root = dirname(dirname(script));
  const inside = relative(root, realpathOrSelf(context.cwd));
  if (!inside.startsWith('..') && !isAbsolute(inside)) return 'npx svc';
  return `node ${shellQuote(script)}`;
}

/** The invocation for this process. */
export function currentSvcCommand(env: NodeJS.ProcessEnv = process.env): string {
  return svcCommand({env, cwd: process.cwd(), script: process.argv[1]});
}

/** Quotes a value for a POSIX shell only when it needs it. */
export function shellQuote(value: string): string {
  if (/^[\w@%+=:,./-]+$/.test(value)) return value;
  return `'${value.replaceAll("'", `'\\''`)}'`;
}
