// The emulator's account page has a host name of its own on this machine, one per port: `svc-<port>.localhost`.
// Browsers keep cookies per host name, never per port, so a session cookie set at `localhost` or `127.0.0.1` would
// reach every other server browsed there (an app on :3000). Every `*.localhost` name is loopback, resolved by the
// browser itself without DNS (RFC 6761), so the name cannot be rebound and a cookie set on it stays with it.
// Node and curl may not resolve such names: programs keep talking to 127.0.0.1; only browsers need the name.

const ACCOUNT_HOST = /^svc-([1-9]\d{0,4})\.localhost$/;
const MAX_PORT = 65_535;

/** The account page's host name for an emulator on `port` (a browser on this machine reaches it by this name). */
export function accountHostName(port: number): string {
  return `svc-${port}.localhost`;
}

/** The port an account host name is for (`svc-4010.localhost` → 4010), or undefined when it is not one. */
export function portOfAccountHostName(hostname: string): number | undefined {
  const match = ACCOUNT_HOST.exec(hostname.toLowerCase());
  const port = match ? Number(match[1]) : Number.NaN;
  return port <= MAX_PORT ? port : undefined;
}

/** The origin of the account page of an emulator on `port`, as a browser on this machine opens it. */
export function accountOrigin(port: number): string {
  return `http://${accountHostName(port)}${port === 80 ? '' : `:${port}`}`;
}

/** The account page of an emulator on `port`. */
export function localAccountUrl(port: number): string {
  return `${accountOrigin(port)}/account`;
}
