// `svc open`: the account page of the emulator serving the API address in use, opened in a browser where one
// can be (the platform's opener, spawned without a shell), its address printed either way.
import {spawn} from 'node:child_process';
import {defaultFileStore, resolveStoredApiUrl} from '../auth/resolve.js';
import {isProcessAlive, readRuntimeFile} from '@svc/client';
import {UserError} from '../lib/errors.js';
import {emulatorDataDir} from '../lib/paths.js';
import {sameApiAddress} from './emulator/registry.js';

export interface OpenOptions {
  env: NodeJS.ProcessEnv;
  apiUrl?: string;
  dataDir?: string;
  /** Print the address only, never start a browser. */
  print?: boolean;
  /** Whether a person is at a terminal (stdin and stdout). */
  interactive: boolean;
  platform?: NodeJS.Platform;
}

export interface OpenResult {
  url: string;
  api_url: string;
  opened: boolean;
  /** Why no browser was started, when none was. */
  reason?: string;
}

/** The account page of the running emulator that serves `apiUrl`. */
export async function accountPageFor(options: Pick<OpenOptions, 'env' | 'apiUrl' | 'dataDir'>) {
  const apiUrl = await resolveStoredApiUrl({
    env: options.env,
    flags: {apiUrl: options.apiUrl},
    fileStore: defaultFileStore(options.env),
  });
  const dataDir = options.dataDir ?? emulatorDataDir(options.env);
  const info = await readRuntimeFile(dataDir);
  if (!info || !isProcessAlive(info.pid) || !sameApiAddress(info.api_url, apiUrl)) {
    throw new UserError(`no running emulator serves ${apiUrl}`, {
      code: 'emulator_not_running',
      suggestions: [
        `Start one with \`svc emulator start\`, or pass the --data-dir of the one serving ${apiUrl}`,
        'Or name the address of a running one with --api-url (`svc emulator status` shows it)',
      ],
    });
  }
  return {url: info.account_url, apiUrl: info.api_url};
}

/** The program that opens an address in the default browser, with its arguments: never through a shell. */
export function opener(platform: NodeJS.Platform, url: string): {command: string; args: string[]} {
  if (platform === 'darwin') return {command: 'open', args: [url]};
  if (platform === 'win32') return {command: 'rundll32', args: ['url.dll,FileProtocolHandler', url]};
  return {command: 'xdg-open', args: [url]};
}

/** Why no browser can be opened here, if none can. */
export function noBrowserReason(options: OpenOptions, platform: NodeJS.Platform): string | undefined {
  if (options.print) return undefined;
  if (!options.interactive) return 'not at a terminal';
  const graphical =
    platform === 'darwin' || platform === 'win32' || options.env.DISPLAY || options.env.WAYLAND_DISPLAY;
  return graphical ? undefined : 'no graphical display (DISPLAY and WAYLAND_DISPLAY are unset)';
}

/** Starts the opener and waits for its answer: 0 means the browser took the address. */
function runOpener(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<string | undefined> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {env, stdio: 'ignore', shell: false});
    child.once('error', (err) =>
      resolve(`${command} could not be started (${(err as NodeJS.ErrnoException).code ?? err.message})`),
    );
    child.once('exit', (code, signal) =>
      resolve(code === 0 ? undefined : `${command} failed (${signal ?? `exit code ${code}`})`),
    );
  });
}

export async function openAccountPage(options: OpenOptions): Promise<OpenResult> {
  const {url, apiUrl} = await accountPageFor(options);
  const platform = options.platform ?? process.platform;
  if (options.print) return {url, api_url: apiUrl, opened: false};
  const reason = noBrowserReason(options, platform);
  if (reason) return {url, api_url: apiUrl, opened: false, reason};
  const {command, args} = opener(platform, url);
  const failed = await runOpener(command, args, options.env);
  return failed
    ? {url, api_url: apiUrl, opened: false, reason: failed}
    : {url, api_url: apiUrl, opened: true};
}
