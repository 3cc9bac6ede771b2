// Which emulator a command means, answered one way for every command (the control commands, status, open, listen,
// the state commands, the TUI, delivery detail, doctor):
// 1. a named data dir (--data-dir, SVC_EMULATOR_DATA_DIR) wins;
// 2. else the API address in use (--api-url, SVC_API_URL, the latest login; the service's default never counts) is
//    matched against every noted emulator (registry.ts) and the default data dir's;
// 3. else the default data dir's.
// An --api-url given with the command is an order too: whatever the way, the emulator found must serve it.
//
// A runtime file (a data dir's emulator.json, a registry note) is believed only when it is the user's own: owned
// by this user and writable by nobody else. Anyone else could have planted it to point svc at their server (and
// have it send the admin token there, or open their page); such a file is ignored, and the answer says so.
import {constants} from 'node:fs';
import {type FileHandle, open} from 'node:fs/promises';
import {DEFAULT_API_URL, EmulatorControl, type FetchLike, isLoopbackHost, normalizeApiUrl} from '@svc/client';
import type {FileCredentialStore} from '../../auth/file-store.js';
import {defaultFileStore, resolveStoredApiUrl} from '../../auth/resolve.js';
import {isProcessAlive, type RuntimeInfo, runtimeFilePath} from '../../emulator-layout/runtime.js';
import {noEmulatorError, type UserError} from '../../lib/errors.js';
import {emulatorDataDir} from '../../user-dirs.js';
import {noteFiles, parseNote, removeNote} from './registry.js';

export interface LocateOptions {
  env: NodeJS.ProcessEnv;
  /** --data-dir of the command, when it has one. */
  dataDir?: string;
  /** --api-url of the command, when it has one. */
  apiUrl?: string;
  /** Where the latest login is read (default: the credentials file, repaired as it is read). */
  fileStore?: FileCredentialStore;
}

/** How the emulator was chosen: by the data dir named, by the address in use, or as the default data dir's. */
export type LocatedHow = 'data-dir' | 'address' | 'default';

export interface Located {
  found: true;
  info: RuntimeInfo;
  dataDir: string;
  how: LocatedHow;
}

export interface NotLocated {
  found: false;
  /** Where the command looked: the data dir, and the address in use when it looked by address. */
  lookedFor: {data_dir: string; api_url?: string};
  /** Why a runtime file seen on the way was not believed (or did not fit), one sentence each; often empty. */
  reasons: string[];
}

/** The data dir named for this command, which wins over any address. */
export function namedDataDir(options: Pick<LocateOptions, 'dataDir' | 'env'>): string | undefined {
  return options.dataDir ?? (options.env.SVC_EMULATOR_DATA_DIR || undefined);
}

/**
 * The API address a command uses, when it is not the service's default (an emulator never serves that): what
 * `svc org` would talk to.
 */
export async function addressInUse(
  options: Pick<LocateOptions, 'apiUrl' | 'env' | 'fileStore'>,
): Promise<string | undefined> {
  const apiUrl = await resolveStoredApiUrl({
    env: options.env,
    flags: {apiUrl: options.apiUrl},
    fileStore: options.fileStore ?? defaultFileStore(options.env),
  }).catch(() => undefined);
  return apiUrl === undefined || apiUrl === DEFAULT_API_URL ? undefined : apiUrl;
}

/** Same scheme and port, and the same host (every loopback name counts as one). */
export function sameApiAddress(a: string, b: string): boolean {
  try {
    const x = new URL(a);
    const y = new URL(b);
    const host = (h: string) => (isLoopbackHost(h) ? 'loopback' : h);
    return x.protocol === y.protocol && x.port === y.port && host(x.hostname) === host(y.hostname);
  } catch {
    return false;
  }
}

/** The emulator this command means, or where it looked and why nothing there was believed. */
export async function locateEmulator(options: LocateOptions): Promise<Located | NotLocated> {
  const reasons: string[] = [];
  const explicit = options.apiUrl === undefined ? undefined : normalizedOrAsGiven(options.apiUrl);
  /** The found emulator, unless the command's --api-url names another address. */
  const answer = (info: RuntimeInfo, dataDir: string, how: LocatedHow): Located | NotLocated => {
    if (explicit === undefined || sameApiAddress(info.api_url, explicit)) {
      return {found: true, info, dataDir, how};
    }
    reasons.push(`the emulator of ${dataDir} serves ${info.api_url}`);
    return {found: false, lookedFor: {data_dir: dataDir, api_url: explicit}, reasons};
  };

  const named = namedDataDir(options);
  if (named !== undefined) {
    const read = await readRuntime(named);
    if (read.state === 'running') return answer(read.info, named, 'data-dir');
    if (read.state === 'ignored') reasons.push(read.reason);
    return {found: false, lookedFor: {data_dir: named}, reasons};
  }

  const defaultDir = emulatorDataDir(options.env);
  const apiUrl = await addressInUse(options);
  if (apiUrl !== undefined) {
    const candidates = new Set([...(await notedDataDirs(options.env, reasons)), defaultDir]);
    for (const dataDir of candidates) {
      const read = await readRuntime(dataDir);
      if (read.state === 'ignored') reasons.push(read.reason);
      if (read.state === 'running' && sameApiAddress(read.info.api_url, apiUrl)) {
        return {found: true, info: read.info, dataDir, how: 'address'};
      }
    }
    return {found: false, lookedFor: {data_dir: defaultDir, api_url: apiUrl}, reasons};
  }

  const read = await readRuntime(defaultDir);
  if (read.state === 'running') return answer(read.info, defaultDir, 'default');
  if (read.state === 'ignored') reasons.push(read.reason);
  return {
    found: false,
    lookedFor: explicit === undefined ? {data_dir: defaultDir} : {data_dir: defaultDir, api_url: explicit},
    reasons,
  };
}

/** The control client of a found emulator: the one place the CLI makes one from a runtime file. */
export function controlOf(
  found: {info: Pick<RuntimeInfo, 'api_url' | 'admin_token'>},
  options: {fetch?: FetchLike} = {},
): EmulatorControl {
  return new EmulatorControl({
    url: found.info.api_url,
    adminToken: found.info.admin_token,
    fetch: options.fetch,
  });
}

/** The error of a command that needs a running emulator and found none: where it looked, and why. */
export function notFoundError(notFound: Pick<NotLocated, 'lookedFor' | 'reasons'>): UserError {
  const {data_dir: dataDir, api_url: apiUrl} = notFound.lookedFor;
  const said =
    apiUrl === undefined
      ? `no emulator is running for the data dir ${dataDir}`
      : `no running emulator serves ${apiUrl}`;
  const port = apiUrl !== undefined && URL.canParse(apiUrl) ? new URL(apiUrl).port || '80' : undefined;
  const suggestions =
    apiUrl === undefined
      ? [
          'Start one with `svc emulator start` (or pass the --data-dir it was started with)',
          'Or set SVC_EMULATOR_DATA_DIR to its data dir',
        ]
      : [
          port === undefined
            ? 'Start one with `svc emulator start`'
            : `Start one there with \`svc emulator start --port ${port}\``,
          'Or pass the --data-dir of the emulator you mean (or set SVC_EMULATOR_DATA_DIR)',
        ];
  if (notFound.reasons.some((r) => r.endsWith(IGNORED))) {
    suggestions.push(
      'Remove a runtime file that is not yours; a running emulator of yours writes its own again when it starts',
    );
  }
  return noEmulatorError(
    notFound.reasons.length ? `${said}; ${notFound.reasons.join('; ')}` : said,
    suggestions,
  );
}

const IGNORED = ': ignored';

/** A data dir's emulator.json, read only when it is the user's own. */
export type RuntimeRead =
  | {state: 'running'; info: RuntimeInfo; mode: number}
  /** Its process is gone (the emulator did not stop cleanly). */
  | {state: 'stale'; info: RuntimeInfo; mode: number}
  | {state: 'missing'}
  | {state: 'damaged'}
  /** Not the user's own: `reason` says why, as a sentence ending in ": ignored". */
  | {state: 'ignored'; reason: string};

export async function readRuntime(dataDir: string): Promise<RuntimeRead> {
  const file = await readOwnFile(runtimeFilePath(dataDir), `the emulator.json in ${dataDir}`);
  if (file.state !== 'read') return file;
  const info = parseRuntime(file.text);
  if (!info) return {state: 'damaged'};
  return {state: isProcessAlive(info.pid) ? 'running' : 'stale', info, mode: file.mode};
}

function parseRuntime(text: string): RuntimeInfo | undefined {
  try {
    const info = JSON.parse(text) as Partial<RuntimeInfo> | null;
    if (
      typeof info !== 'object' ||
      info === null ||
      typeof info.api_url !== 'string' ||
      typeof info.admin_token !== 'string' ||
      // 0 and negative pids name process groups, which "are alive" to a signal 0.
      !Number.isSafeInteger(info.pid) ||
      (info.pid as number) <= 0
    ) {
      return undefined;
    }
    return info as RuntimeInfo;
  } catch {
    return undefined;
  }
}

type OwnFile =
  | {state: 'read'; text: string; mode: number}
  | {state: 'missing'}
  | {state: 'ignored'; reason: string};

/**
 * A file's text when it is the user's own: a regular file (no link followed, no pipe waited on), owned by this
 * user, writable by nobody else. Checked on the open file itself, so what is read is what was checked.
 */
async function readOwnFile(path: string, what: string): Promise<OwnFile> {
  let handle: FileHandle;
  try {
    handle = await open(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return {state: 'missing'};
    if (code === 'ELOOP') return {state: 'ignored', reason: `${what} is a symbolic link${IGNORED}`};
    return {state: 'ignored', reason: `${what} cannot be read (${code ?? 'error'})${IGNORED}`};
  }
  try {
    const stat = await handle.stat();
    const problem = notOurOwn(stat);
    if (problem) return {state: 'ignored', reason: `${what} ${problem}${IGNORED}`};
    return {state: 'read', text: await handle.readFile('utf8'), mode: stat.mode};
  } catch (err) {
    return {
      state: 'ignored',
      reason: `${what} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})${IGNORED}`,
    };
  } finally {
    await handle.close();
  }
}

/** Why a file is not the user's own, or undefined when it is. */
function notOurOwn(stat: {uid: number; mode: number; isFile(): boolean}): string | undefined {
  if (!stat.isFile()) return 'is not a regular file';
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid) return `belongs to another user (uid ${stat.uid})`;
  if (process.platform !== 'win32' && (stat.mode & 0o022) !== 0) {
    return `can be changed by other users (mode ${(stat.mode & 0o777).toString(8).padStart(3, '0')})`;
  }
  return undefined;
}

/** The data dirs of the running emulators noted in the registry: notes not the user's own are ignored (and said). */
async function notedDataDirs(env: NodeJS.ProcessEnv, reasons: string[]): Promise<string[]> {
  const dirs: string[] = [];
  for (const path of await noteFiles(env)) {
    const file = await readOwnFile(path, `the emulator note ${path}`);
    if (file.state === 'ignored') reasons.push(file.reason);
    if (file.state !== 'read') continue;
    // A note being written right now parses as nothing: the next look sees it whole or gone.
    const note = parseNote(file.text);
    if (!note) continue;
    if (isProcessAlive(note.pid)) dirs.push(note.data_dir);
    else await removeNote(path);
  }
  return dirs;
}

function normalizedOrAsGiven(apiUrl: string): string {
  try {
    return normalizeApiUrl(apiUrl);
  } catch {
    return apiUrl;
  }
}
