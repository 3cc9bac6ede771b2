// What an emulator leaves on disk (the data dir made for it, with emulator.json and its admin token) goes when its
// process ends without stopping it: at exit and on SIGINT or SIGTERM (src/at-exit.ts).
import {rmSync} from 'node:fs';
import {atExit} from '../../at-exit.js';

/**
 * Removes `dir` (synchronously, whole) if the process exits or is signalled before the returned function is
 * called; that function forgets it (the emulator stopped and removed it itself).
 */
export function removeAtExit(dir: string): () => void {
  return atExit(() => rmSync(dir, {recursive: true, force: true}));
}
