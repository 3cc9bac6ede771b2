// Each port session is served at a host name of its own, `link-<label>.localhost`: an origin that shares nothing
// with the account page (`svc-<port>.localhost`), the loopback names every local server shares, or another link.
// Browsers resolve every `*.localhost` name to loopback themselves (RFC 6761) and keep each one a site of its own
// (`localhost` is a suffix no cookie may be set on), so an app behind a link can neither read the page nor plant a
// cookie on it. The label is derived from the link's token (never the token itself, which would travel in every
// Origin header the app sends): a request must carry the token in its path, and the name must be the token's.
import {createHash} from 'node:crypto';

/** Every link's URL is under this path: `/_links/<token>/…`. */
export const LINK_PATH_PREFIX = '/_links';

const LINK_HOST = /^link-([0-9a-f]{32})\.localhost$/;

/** The label of the host name of the port session whose URL carries `token`. */
function labelOf(token: string): string {
  return createHash('sha256').update('svc port session origin\0').update(token).digest('hex').slice(0, 32);
}

/** `link-<label>.localhost`: the host name of the port session whose URL carries `token`. */
export function linkHostName(token: string): string {
  return `link-${labelOf(token)}.localhost`;
}

/** The origin of that port session on an emulator listening on `port`. */
export function linkOrigin(token: string, port: number): string {
  return `http://${linkHostName(token)}${port === 80 ? '' : `:${port}`}`;
}

/** True for a host name of the shape of a port session's (whatever its token). */
export function isLinkHostName(hostname: string): boolean {
  return LINK_HOST.test(hostname.toLowerCase());
}

/** True when `hostname` is the host name of the port session whose URL carries `token`. */
export function isHostOfToken(hostname: string, token: string): boolean {
  return hostname.toLowerCase() === linkHostName(token);
}
