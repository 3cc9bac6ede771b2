// The emulator lane: its data dir (owner-only), the emulator.json a running emulator leaves there, and the
// database template new data dirs are copied from.
import {stat} from 'node:fs/promises';
import {join} from 'node:path';
import {type RuntimeInfo, runtimeFilePath} from '../../emulator-layout/runtime.js';
import {templateFilesProblem} from '../../emulator-layout/template-manifest.js';
import {readRuntime, sameApiAddress} from '../emulator/locate.js';
import {check, type DoctorCheck} from './check.js';

/** Where `svc emulator start` keeps the database template it makes, under the user cache dir. */
export const TEMPLATE_CACHE_FOLDER = 'emulator-pg-template';

const openTo = (mode: number) => process.platform !== 'win32' && (mode & 0o077) !== 0;

export async function checkDataDir(dataDir: string): Promise<DoctorCheck> {
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(dataDir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      return check(
        'data_dir',
        'emulator',
        'ok',
        `${dataDir} does not exist yet (the first emulator start makes it)`,
      );
    }
    return check(
      'data_dir',
      'emulator',
      'fail',
      `${dataDir} cannot be read (${(err as NodeJS.ErrnoException).code})`,
      'Give the emulator a folder of your own: --data-dir DIR',
    );
  }
  if (!info.isDirectory()) {
    return check(
      'data_dir',
      'emulator',
      'fail',
      `${dataDir} is not a folder`,
      'Move that file away, or pass --data-dir DIR',
    );
  }
  if (openTo(Number(info.mode))) {
    return check(
      'data_dir',
      'emulator',
      'fail',
      `${dataDir} is open to other users (mode ${(Number(info.mode) & 0o777).toString(8)}); it holds the vault key and the admin token`,
      `chmod 700 ${dataDir}`,
    );
  }
  return check('data_dir', 'emulator', 'ok', `${dataDir}, mode 700`);
}

/**
 * The running emulator of the data dir, and whether it serves the API address in use. Its emulator.json is read as
 * every command reads it (locate.ts): one that is not the user's own is ignored, and said to be.
 */
export async function checkRuntimeFile(input: {
  dataDir: string;
  apiUrl: string;
}): Promise<{check: DoctorCheck; running?: RuntimeInfo}> {
  const path = runtimeFilePath(input.dataDir);
  const read = await readRuntime(input.dataDir);
  if (read.state === 'missing') {
    return {check: check('emulator_json', 'emulator', 'ok', `no emulator is running for ${input.dataDir}`)};
  }
  if (read.state === 'damaged') {
    return {
      check: check(
        'emulator_json',
        'emulator',
        'warn',
        `${path} is damaged`,
        `Remove it: rm ${path} (a starting emulator writes it anew)`,
      ),
    };
  }
  if (read.state === 'ignored') {
    return {
      check: check(
        'emulator_json',
        'emulator',
        'fail',
        `${read.reason} (svc believes a runtime file only when it is yours and nobody else can change it)`,
        `Remove it if it is not yours: rm ${path} (an emulator of yours writes its own when it starts)`,
      ),
    };
  }
  const {info} = read;
  if (read.state === 'stale') {
    return {
      check: check(
        'emulator_json',
        'emulator',
        'warn',
        `${path} is stale: it names process ${info.pid}, which is not running (the emulator did not stop cleanly)`,
        `Remove it: rm ${path}, or start the emulator again, which replaces it`,
      ),
    };
  }
  if (openTo(read.mode)) {
    return {
      check: check(
        'emulator_json',
        'emulator',
        'fail',
        `${path} is open to other users (mode ${(read.mode & 0o777).toString(8)}); it holds the admin token`,
        `chmod 600 ${path}`,
      ),
      running: info,
    };
  }
  if (!sameApiAddress(info.api_url, input.apiUrl)) {
    return {
      check: check(
        'emulator_json',
        'emulator',
        'warn',
        `the emulator of ${input.dataDir} (process ${info.pid}) serves ${info.api_url}, but commands here use ${input.apiUrl}`,
        `Use it: export SVC_API_URL=${info.api_url}, or svc login --api-url ${info.api_url}`,
      ),
      running: info,
    };
  }
  return {
    check: check(
      'emulator_json',
      'emulator',
      'ok',
      `process ${info.pid} serves ${info.api_url} from ${input.dataDir}`,
    ),
    running: info,
  };
}

/** The database template in the user cache: one left half-made is never used, and rebuilt on the next start. */
export async function checkTemplate(cacheDir: string): Promise<DoctorCheck> {
  const dir = join(cacheDir, TEMPLATE_CACHE_FOLDER);
  const present = await stat(dir).then(
    () => true,
    () => false,
  );
  if (!present)
    return check(
      'template',
      'emulator',
      'ok',
      `no database template in ${dir} (the packaged one is used, or one is made on first start)`,
    );
  const problem = await templateFilesProblem(dir);
  if (problem) {
    return check(
      'template',
      'emulator',
      'warn',
      `the database template in ${dir} is incomplete (${problem}): every fresh data dir rebuilds it, which takes seconds`,
      `Remove it: rm -r ${dir} (the next emulator start makes it again)`,
    );
  }
  return check('template', 'emulator', 'ok', `the database template in ${dir} is complete`);
}
