// How a person runs svc from where they are, so that every command the tool prints runs as printed.
import {existsSync, realpathSync} from 'node:fs';
import {basename, delimiter, dirname, isAbsolute, join, relative} from 'node:path';
import {isSea} from 'node:sea';

export interface InvocationContext {
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** The script this process runs (process.argv[1]). */
  script: string | undefined;
  platform?: NodeJS.Platform;
  /**
   * The path of the single executable svc runs as (docs/binary.md), when it does: then svc is that file, whatever
   * else is on the PATH, and there is no script.
   */
  executable?: string;
}

/**
 * The executable's own path when this process is svc built as one file, else undefined: the file people run, whose
 * launcher (docs/binary.md) names itself in SVC_EXECUTABLE for the program it starts from the cache, else the
 * program itself.
 */
export function runningExecutable(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (!isSea()) return undefined;
  const launcher = env.SVC_EXECUTABLE;
  return launcher && isAbsolute(launcher) && existsSync(launcher) ? launcher : process.execPath;
}

/** The executable by its name when the PATH finds this very file under it, else by its absolute path. */
function executableCommand(executable: string, env: NodeJS.ProcessEnv): string {
  const name = basename(executable);
  const self = realpathOrSelf(executable);
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    const candidate = dir ? join(dir, name) : '';
    if (candidate && existsSync(candidate) && realpathOrSelf(candidate) === self) return name;
  }
  return shellQuote(self);
}

function realpathOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** The package's name on the registry: what npx fetches where no project of the person's has it. */
export const CLI_PACKAGE = '@svc/cli';

/**
 * `svc` when it is on PATH (installed or linked); else `npx svc` inside a project that has the package (or the
 * package's own folder), where npx runs the project's own bin; started by npx from its cache, `npx @svc/cli`
 * (a bare `npx svc` there would fetch another package of that name); else node with the absolute path of the
 * running script, which works from anywhere.
 */
export function svcCommand(context: InvocationContext): string {
  if (context.executable) return executableCommand(context.executable, context.env);
  // Started by npx (npm exec): npx worked from here, and the PATH it set up is not the person's.
  if (context.env.npm_command === 'exec') return inProject(context) ? 'npx svc' : `npx ${CLI_PACKAGE}`;
  const names = (context.platform ?? process.platform) === 'win32' ? ['svc.cmd', 'svc.exe'] : ['svc'];
  for (const dir of (context.env.PATH ?? '').split(delimiter)) {
    if (dir && names.some((name) => existsSync(join(dir, name)))) return 'svc';
  }
  if (!context.script) return 'svc';
  if (inProject(context)) return 'npx svc';
  return `node ${shellQuote(realpathOrSelf(context.script))}`;
}

/** Whether the working folder is the package's own (a clone) or inside a project that installed it. */
function inProject(context: InvocationContext): boolean {
  if (!context.script) return false;
  const root = dirname(dirname(realpathOrSelf(context.script)));
  const cwd = realpathOrSelf(context.cwd);
  if (isInside(root, cwd)) return true;
  // node_modules/@svc/cli: the scope's folder sits between the package and node_modules.
  let modules = dirname(root);
  if (basename(modules).startsWith('@')) modules = dirname(modules);
  return basename(modules) === 'node_modules' && !isInNpxCache(modules) && isInside(dirname(modules), cwd);
}

/** npx installs into `<npm cache>/_npx/<hash>/node_modules`: not a project of the person's. */
function isInNpxCache(modules: string): boolean {
  return basename(dirname(dirname(modules))) === '_npx';
}

function isInside(dir: string, path: string): boolean {
  const inside = relative(dir, path);
  return !inside.startsWith('..') && !isAbsolute(inside);
}

/** The invocation for this process. */
export function currentSvcCommand(env: NodeJS.ProcessEnv = process.env): string {
  return svcCommand({env, cwd: process.cwd(), script: process.argv[1], executable: runningExecutable()});
}

/**
 * Text for a person with every command in it spelled for this invocation: in each span between backticks (how
 * hints, errors and help quote a command), `svc` where a shell would run it (first, after environment
 * assignments, or after `|`, `;`, `&&` or `$(`) becomes svc as given. Anything else is returned as it was.
 */
export function spellSvc(text: string, svc: string): string {
  if (svc === 'svc') return text;
  return text.replace(
    /`([^`]*)`/g,
    (_, span: string) =>
      `\`${span.replace(/(^(?:[A-Za-z_]\w*=\S*\s+)*|[|;&(]\s*)svc(?=\s|$)/g, `$1${svc}`)}\``,
  );
}

/**
 * How an MCP client (an editor, started from anywhere, with its own PATH) runs the server: `svc` when it is on
 * the PATH, else node and the running entry script by their absolute paths, which work from any folder.
 */
export function mcpServerCommand(context: InvocationContext): {command: string; args: string[]} {
  // The executable needs nothing beside it: its absolute path starts it from any folder and any PATH.
  if (context.executable) return {command: realpathOrSelf(context.executable), args: []};
  const names = (context.platform ?? process.platform) === 'win32' ? ['svc.cmd', 'svc.exe'] : ['svc'];
  const onPath = (context.env.PATH ?? '')
    .split(delimiter)
    .some((dir) => dir && names.some((name) => existsSync(join(dir, name))));
  if (onPath || !context.script) return {command: 'svc', args: []};
  // npx's own copy lives in a cache that npm may clear; npx finds (or fetches) it again from anywhere.
  if (context.env.npm_command === 'exec' && !inProject(context))
    return {command: 'npx', args: ['--yes', CLI_PACKAGE]};
  return {command: process.execPath, args: [realpathOrSelf(context.script)]};
}

/** Quotes a value for a POSIX shell only when it needs it. */
export function shellQuote(value: string): string {
  if (/^[\w@%+=:,./-]+$/.test(value)) return value;
  return `'${value.replaceAll("'", `'\\''`)}'`;
}
