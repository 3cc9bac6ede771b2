// Which files and folders under a directory anyone but their owner can read, write or enter.
import {readdir, stat} from 'node:fs/promises';
import {join} from 'node:path';

/** Every path under `dir` (itself included) with a group or other permission bit, as "path mode". */
export async function openToOthers(dir: string): Promise<string[]> {
  const open: string[] = [];
  const visit = async (path: string) => {
    const info = await stat(path);
    if ((info.mode & 0o077) !== 0) open.push(`${path} ${(info.mode & 0o777).toString(8)}`);
    if (info.isDirectory()) for (const name of await readdir(path)) await visit(join(path, name));
  };
  await visit(dir);
  return open;
}
