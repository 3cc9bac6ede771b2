// Which emulators run, whatever their data dirs. Every `svc emulator start` notes its data dir in
// <svc data dir>/emulators/<pid>.json while it runs, so a command finds the emulator behind the address in use
// (the latest login, SVC_API_URL, --api-url) whatever data dir it was started with. The note holds no secret:
// the admin token stays in the data dir's own emulator.json. This module only records and lists the notes;
// which emulator a command means (and which notes it believes) is locate.ts's to decide.
import {mkdir, readdir, rm} from 'node:fs/promises';
import {join} from 'node:path';
import {writeOwnerOnly} from '../../lib/safe-write.js';
import {dataDir as svcDataDir} from '../../user-dirs.js';

export interface EmulatorNote {
  data_dir: string;
  pid: number;
}

function registryDir(env: NodeJS.ProcessEnv): string {
  return join(svcDataDir(env), 'emulators');
}

/** Notes a running emulator's data dir; the returned function removes the note. */
export async function registerEmulator(
  env: NodeJS.ProcessEnv,
  dataDir: string,
  pid = process.pid,
): Promise<() => Promise<void>> {
  const dir = registryDir(env);
  const file = join(dir, `${pid}.json`);
  try {
    await mkdir(dir, {recursive: true, mode: 0o700});
    // As svc writes every file: owner-only, whole, never through a link planted at the name.
    writeOwnerOnly(file, `${JSON.stringify({data_dir: dataDir, pid} satisfies EmulatorNote)}\n`, {
      label: 'the emulator note',
    });
  } catch {
    // Without the note the emulator still runs; only commands naming its address without --data-dir miss it.
    return async () => undefined;
  }
  return () => rm(file, {force: true});
}

/** The paths of the notes there are now. */
export async function noteFiles(env: NodeJS.ProcessEnv): Promise<string[]> {
  const dir = registryDir(env);
  const names = await readdir(dir).catch(() => [] as string[]);
  return names.filter((n) => /^\d+\.json$/.test(n)).map((n) => join(dir, n));
}

/** A note's content, or undefined when it is not one (being written, damaged). */
export function parseNote(text: string): EmulatorNote | undefined {
  try {
    const note = JSON.parse(text) as {data_dir?: unknown; pid?: unknown} | null;
    if (typeof note?.data_dir !== 'string' || !Number.isSafeInteger(note.pid) || (note.pid as number) <= 0) {
      return undefined;
    }
    return {data_dir: note.data_dir, pid: note.pid as number};
  } catch {
    return undefined;
  }
}

/** Forgets the note of an emulator whose process is gone. */
export async function removeNote(path: string): Promise<void> {
  await rm(path, {force: true}).catch(() => undefined);
}
