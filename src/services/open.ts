// `svc open`: the account page of the emulator serving the API address in use, opened in a browser where one
// can be (the platform's opener, spawned without a shell), its address printed either way.
import {spawn} from 'node:child_process';
import {isLoopbackHost, portOfAccountHostName, type RuntimeInfo} from '@svc/client';
import {UserError} from '../lib/errors.js';
import {portArg} from '../lib/hints.js';
import {locateEmulator, notFoundError} from './emulator/locate.js';

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

/** The account page of the running emulator the command means, found as every command finds it. */
export async function accountPageFor(options: Pick<OpenOptions, 'env' | 'apiUrl' | 'dataDir'>) {
  const located = await locateEmulator(options);
  if (!located.found) throw notFoundError(located);
  return {url: openableAccountUrl(located.info), apiUrl: located.info.api_url};
}

/**
 * The runtime file's account page, when it is one a browser may be sent to: http:// or https://, no user name,
 * on this machine (a loopback name, or the emulator's own `svc-<port>.localhost`) or at the host the emulator
 * itself listens on (one started with --host). Anything else (a `file:` URL, another scheme, another host) is refused, never opened.
 */
export function openableAccountUrl(info: Pick<RuntimeInfo, 'account_url' | 'api_url'>): string {
  const url =
    typeof info.account_url === 'string' && URL.canParse(info.account_url)
      ? new URL(info.account_url)
      : undefined;
  const api = URL.canParse(info.api_url) ? new URL(info.api_url) : undefined;
  const apiPort = api && Number(api.port || (api.protocol === 'https:' ? 443 : 80));
  const ok =
    url !== undefined &&
    (url.protocol === 'http:' || url.protocol === 'https:') &&
    url.username === '' &&
    url.password === '' &&
    (isLoopbackHost(url.hostname) ||
      (api !== undefined && portOfAccountHostName(url.hostname) === apiPort) ||
      url.hostname === api?.hostname);
  if (!ok) {
    const shown = JSON.stringify(String(info.account_url).slice(0, 120));
    throw new UserError(
      `the emulator at ${info.api_url} gives ${shown} as its account page, which is not an http:// or https:// address of that emulator, so svc open does not open it`,
      {
        code: 'unsafe_account_url',
        suggestions: [
          `Restart the emulator (\`svc emulator stop\`, then \`svc emulator start${portArg(info.api_url)}\`): it writes its runtime file anew`,
        ],
      },
    );
  }
  return url.href;
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
