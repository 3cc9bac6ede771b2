// Pieces of the commands that hints and errors print, shared by the services (whose errors name a next step)
// and the screens: each spelled once, so a printed command reaches the same emulator and runs as printed.
import {EMULATOR_DEFAULT_PORT} from '../definitions.js';
import {shellQuote} from './invocation.js';

/** The local URL the examples and hints use. */
export const FORWARD_EXAMPLE = 'http://localhost:3000/webhooks';

/** ` --data-dir DIR` when the user named one, so a printed command reaches the same emulator. */
export function dataDirArg(dataDir: string | undefined): string {
  return dataDir === undefined ? '' : ` --data-dir ${shellQuote(dataDir)}`;
}

/**
 * ` --port N` when the emulator at this address listens on another port than a start without --port would use,
 * so a printed start command brings it back where it was (and where the login and SVC_API_URL point).
 */
export function portArg(apiUrl: string | undefined): string {
  if (apiUrl === undefined || !URL.canParse(apiUrl)) return '';
  const url = new URL(apiUrl);
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  return port === EMULATOR_DEFAULT_PORT ? '' : ` --port ${port}`;
}

/** What to do about a local URL the emulator will not post to: relay it with `svc listen`, or let it post there. */
export function localUrlWaysOut(o: {
  svc: string;
  url: string;
  /** The address of the emulator that refused it: its restart keeps the port. */
  apiUrl?: string;
  dataDir?: string;
  onThisMachine?: boolean;
}): string[] {
  const restart = `stop it (${o.svc} emulator stop${dataDirArg(o.dataDir)}) and start it again with ${o.svc} emulator start --allow-local-endpoints${portArg(o.apiUrl)}${dataDirArg(o.dataDir)}`;
  if (o.onThisMachine === false) return [`Let the emulator post to private addresses: ${restart}`];
  return [
    `To receive events on this machine, relay them: ${o.svc} listen --forward-to ${shellQuote(o.url)}${dataDirArg(o.dataDir)}`,
    `Or let the emulator post to local URLs: ${restart}`,
  ];
}
