// The system tools of a machine with no Node that the smoke tests of the single executable put on their PATH:
// a POSIX shell and the few programs its launcher runs (src/binary/launcher.sh). Every Linux image that has a
// shell has these (coreutils, or busybox).
import {existsSync, symlinkSync} from 'node:fs';
import {basename, join} from 'node:path';

export const LAUNCHER_TOOLS = [
  'sh',
  'uname',
  'getconf',
  'stat',
  'dd',
  'cat',
  'cksum',
  'mkdir',
  'chmod',
  'mv',
  'rm',
  'rmdir',
];

const SYSTEM_DIRS = ['/usr/bin', '/bin'];

/** The system's own path of a tool, by its name or as given. */
export function systemTool(name) {
  if (name.startsWith('/')) return name;
  const found = SYSTEM_DIRS.map((dir) => join(dir, name)).find((path) => existsSync(path));
  if (!found) throw new Error(`${name} is not in ${SYSTEM_DIRS.join(' or ')}`);
  return found;
}

/** Links each tool (a name or an absolute path) into dir, under its own name. */
export function linkTools(dir, tools) {
  for (const tool of tools) symlinkSync(systemTool(tool), join(dir, basename(tool)));
}
