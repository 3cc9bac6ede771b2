// Which running emulator serves an API address. Every `svc emulator start` notes its data dir in
// <svc data dir>/emulators/<pid>.json while it runs, so a command finds the emulator behind the address in use
// (the latest login, SVC_API_URL, --api-url) whatever data dir it was started with. The note holds no secret:
// the admin token stays in the data dir's own emulator.json.
import {mkdir, readdir, readFile, rm, writeFile} from 'node:fs/promises';
import {join} from 'node:path';
import {isProcessAlive, readRuntimeFile, type RuntimeInfo} from '@svc/client';
import {dataDir as svcDataDir, emulatorDataDir} from '../../lib/paths.js';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Same scheme and port, and the same host (every loopback name counts as one). */
export function sameApiAddress(a: string, b: string): boolean {
  try {
    const x = new URL(a);
    const y = new URL(b);
    const host = (h: string) => (LOOPBACK.has(h) ? 'loopback' : h);
    return x.protocol === y.protocol && x.port === y.port && host(x.hostname) === host(y.hostname);
  } catch {
    return false;
  }
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
    await writeFile(file, `${JSON.stringify({data_dir: dataDir, pid})}\n`, {mode: 0o600});
  } catch {
    // Without the note the emulator still runs; only commands naming its address without --data-dir miss it.
    return async () => undefined;
  }
  return () => rm(file, {force: true});
}

async function notedDataDirs(env: NodeJS.ProcessEnv): Promise<string[]> {
  const dir = registryDir(env);
  const names = await readdir(dir).catch(() => [] as string[]);
  const dirs: string[] = [];
  for (const name of names.filter((n) => /^\d+\.json$/.test(n))) {
    try {
      const note = JSON.parse(await readFile(join(dir, name), 'utf8')) as {data_dir?: unknown; pid?: unknown};
      if (typeof note.data_dir !== 'string' || typeof note.pid !== 'number') continue;
      if (isProcessAlive(note.pid)) dirs.push(note.data_dir);
      else await rm(join(dir, name), {force: true});
    } catch {
      // A note being written or removed right now: the next look sees it whole or gone.
    }
  }
  return dirs;
}

/** The running emulator serving `apiUrl`: among the noted ones, and the default data dir's. */
export async function runningEmulatorFor(
  apiUrl: string,
  env: NodeJS.ProcessEnv,
): Promise<{info: RuntimeInfo; dataDir: string} | undefined> {
  const candidates = [...(await notedDataDirs(env)), emulatorDataDir(env)];
  for (const dataDir of new Set(candidates)) {
    const info = await readRuntimeFile(dataDir);
    if (info && isProcessAlive(info.pid) && sameApiAddress(info.api_url, apiUrl)) return {info, dataDir};
  }
  return undefined;
}
