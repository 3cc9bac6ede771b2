// The network lane: what `localhost` and `*.localhost` resolve to, where a local server listens, and whether
// proxy variables leave this machine's own addresses alone.
import {createConnection} from 'node:net';
import {LOOPBACK_NAMES} from '../../definitions.js';
import {bypassesProxy, proxyEnv} from '../../lib/proxy.js';
import {check, type DoctorCheck} from './check.js';

export interface LookupAddress {
  address: string;
  family: number;
}
/** dns.promises.lookup with {all: true}: the system resolver, as every program here uses it. */
export type Lookup = (host: string) => Promise<LookupAddress[]>;

const LOOPBACK_V4 = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;
const isLoopbackAddress = (a: string) => LOOPBACK_V4.test(a) || a === '::1';

async function resolve(lookup: Lookup, host: string): Promise<LookupAddress[] | string> {
  try {
    return await lookup(host);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code ?? String(err);
  }
}

export async function checkLocalhost(lookup: Lookup): Promise<DoctorCheck> {
  const found = await resolve(lookup, 'localhost');
  if (typeof found === 'string' || found.length === 0) {
    return check(
      'localhost',
      'network',
      'fail',
      `localhost does not resolve here (${typeof found === 'string' ? found : 'no address'})`,
      'Add "127.0.0.1 localhost" and "::1 localhost" to /etc/hosts',
    );
  }
  const list = found.map((a) => a.address).join(', ');
  const strange = found.filter((a) => !isLoopbackAddress(a.address));
  if (strange.length > 0) {
    return check(
      'localhost',
      'network',
      'fail',
      `localhost resolves to ${list}, not only to this machine`,
      'Fix /etc/hosts so localhost names 127.0.0.1 and ::1 only',
    );
  }
  if (!found.some((a) => a.family === 4)) {
    return check(
      'localhost',
      'network',
      'warn',
      `localhost resolves to ${list} only (IPv6): servers listening on 127.0.0.1, the emulator's default, are not reached at localhost`,
      'Use 127.0.0.1 in addresses, or add "127.0.0.1 localhost" to /etc/hosts',
    );
  }
  return check('localhost', 'network', 'ok', `localhost resolves to ${list}`);
}

/** Whether a TCP connection to address:port is accepted within timeoutMs. */
export function listens(address: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = createConnection({host: address, port, timeout: timeoutMs});
    const finish = (ok: boolean) => {
      socket.destroy();
      done(ok);
    };
    socket.once('connect', () => finish(true));
    socket.once('timeout', () => finish(false));
    socket.once('error', () => finish(false));
  });
}

/** Where the server behind `svc listen --forward-to URL` listens, against what its host name resolves to. */
export async function checkForwardTo(input: {
  url: string;
  lookup: Lookup;
  timeoutMs: number;
}): Promise<DoctorCheck> {
  let url: URL;
  try {
    url = new URL(input.url);
  } catch {
    return check(
      'forward_to',
      'network',
      'fail',
      `${input.url} is not a URL`,
      'Give it as http://localhost:3000/webhooks',
    );
  }
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const found = await resolve(input.lookup, host);
  const resolved = typeof found === 'string' ? [] : found.map((a) => a.address);
  const loopbackName = host === 'localhost' || host.endsWith('.localhost') || isLoopbackAddress(host);
  const candidates = [...new Set([...resolved, ...(loopbackName ? ['127.0.0.1', '::1'] : [])])];
  const open = (
    await Promise.all(
      candidates.map(async (a) => ((await listens(a, port, input.timeoutMs)) ? a : undefined)),
    )
  ).filter((a): a is string => a !== undefined);
  const reached = open.filter((a) => resolved.includes(a));
  const where = open.length ? `listens on ${open.join(', ')}` : 'nothing listens';
  const detail = `${url.host}: ${where} (${host} resolves to ${resolved.join(', ') || 'nothing'})`;
  if (reached.length > 0) return check('forward_to', 'network', 'ok', detail);
  const other = open[0];
  return check(
    'forward_to',
    'network',
    'fail',
    detail,
    other
      ? `Forward to the address it listens on: ${url.protocol}//${other.includes(':') ? `[${other}]` : other}:${port}${url.pathname}`
      : `Start the server on port ${port} first, or give the port it listens on`,
  );
}

/** A name under .localhost, such as the emulator's account page `svc-<port>.localhost`, through the system resolver. */
export async function checkDotLocalhost(input: {name: string; lookup: Lookup}): Promise<DoctorCheck> {
  const found = await resolve(input.lookup, input.name);
  if (typeof found === 'string' || found.length === 0) {
    return check(
      'dot_localhost',
      'network',
      'warn',
      `${input.name} does not resolve with this system's resolver: browsers that resolve *.localhost themselves (Chrome, Firefox, Edge) open the account page; curl and scripts do not`,
      `Open the account page in one of those browsers, or add "127.0.0.1 ${input.name}" to /etc/hosts`,
    );
  }
  const list = found.map((a) => a.address).join(', ');
  if (!found.every((a) => isLoopbackAddress(a.address))) {
    return check(
      'dot_localhost',
      'network',
      'fail',
      `${input.name} resolves to ${list}, not to this machine`,
      'Remove the entry that maps it elsewhere (/etc/hosts, a local DNS server)',
    );
  }
  return check('dot_localhost', 'network', 'ok', `${input.name} resolves to ${list}`);
}

/**
 * Each name or address of this machine a NO_PROXY list must hold for local requests to skip the proxy: the loopback
 * names, as NO_PROXY writes them (no brackets).
 */
const LOCAL_NAMES = LOOPBACK_NAMES.map((n) => n.replace(/^\[|\]$/g, ''));

function covers(noProxy: readonly string[], name: string): boolean {
  return noProxy.some((entry) => {
    if (entry === '*') return true;
    const bare = entry.replace(/^\*?\./, '').replace(/^\[|\]$/g, '');
    if (name === '127.0.0.1' && /^127\.0\.0\.0\/8$/.test(bare)) return true;
    return bare === name;
  });
}

export function checkProxy(env: NodeJS.ProcessEnv): DoctorCheck {
  const proxy = proxyEnv(env);
  if (!proxy) return check('proxy', 'network', 'ok', 'no proxy variables are set');
  const names = Object.keys(env).filter((k) => /^(https?|all)_proxy$/i.test(k) && env[k]);
  const noProxy = (proxy.noProxy ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  const missing = LOCAL_NAMES.filter((n) => !covers(noProxy, n));
  // svc itself never sends this machine's addresses through a proxy; other programs follow NO_PROXY.
  const svcSide = LOOPBACK_NAMES.every((n) => bypassesProxy(n))
    ? 'svc skips the proxy for this machine itself'
    : '';
  if (missing.length === 0) {
    return check(
      'proxy',
      'network',
      'ok',
      `${names.join(', ')} set; NO_PROXY covers localhost, 127.0.0.1 and ::1`,
    );
  }
  return check(
    'proxy',
    'network',
    'warn',
    `${names.join(', ')} set and NO_PROXY does not cover ${missing.join(', ')}: ${svcSide}, but receivers' test tools, curl and browsers send local requests through the proxy`,
    `Add them to NO_PROXY: export NO_PROXY=${[...noProxy, ...missing, '.localhost'].join(',')}`,
  );
}
