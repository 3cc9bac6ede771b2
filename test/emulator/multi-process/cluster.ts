// Several emulator processes on one PostgreSQL for the multi-process tests: a fresh schema per test file, processes
// spawned from the built library (emulator-process.js), and a receiver on loopback.
import {type ChildProcessWithoutNullStreams, spawn} from 'node:child_process';
import {randomBytes} from 'node:crypto';
import {type AddressInfo, connect, createServer, type Server, type Socket} from 'node:net';
import {fileURLToPath} from 'node:url';
import pg from 'pg';
import {EmulatorControl} from '../../../src/client/emulator-control.js';
import {postgresUrl} from '../../helpers/requirements.js';
import {changeWaiters} from '../delivery/helpers.js';

const SCRIPT = fileURLToPath(new URL('./emulator-process.js', import.meta.url));

export interface Schema {
  name: string;
  /** A URL whose connections use only this schema. */
  url: string;
  /** The application_name of every connection made through `url`, so a test can cut exactly those. */
  appName: string;
  /** A client on the test's own connection (not the emulators'). */
  admin: pg.Client;
  drop(): Promise<void>;
}

export async function freshSchema(): Promise<Schema> {
  const pgUrl = postgresUrl();
  const name = `svc_test_mp_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({connectionString: pgUrl});
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${name}`);
  await admin.query(`SET search_path = ${name}`);
  const url = new URL(pgUrl);
  url.searchParams.set('options', `-c search_path=${name}`);
  const appName = `svc-emulator-${name}`;
  url.searchParams.set('application_name', appName);
  return {
    name,
    url: url.toString(),
    appName,
    admin,
    async drop() {
      await admin.query(`DROP SCHEMA ${name} CASCADE`).catch(() => undefined);
      await admin.end().catch(() => undefined);
    },
  };
}

export interface Tuning {
  clock?: 'real' | 'manual';
  clockStart?: string;
  signatureClock?: 'real' | 'emulator';
  delivery?: {
    timeoutMs?: number;
    worker?: {leaseMs?: number; idleMs?: number; maxLanes?: number; perEndpoint?: number};
  };
}

export interface EmulatorProcess {
  apiUrl: string;
  adminToken: string;
  orgId: string;
  child: ChildProcessWithoutNullStreams;
  control: EmulatorControl;
  stderr(): string;
  /** Resolves once stderr so far holds `text`, checked as each chunk arrives (pushed, not polled). */
  stderrUntil(text: string | RegExp, timeoutMs?: number): Promise<string>;
  exited: Promise<number | null>;
  /** SIGTERM, and waits for a clean exit. */
  stop(): Promise<void>;
  /** kill -9: no chance to hand anything back. */
  kill(): Promise<void>;
}

export async function startProcess(
  databaseUrl: string,
  vaultKey: Buffer,
  tuning: Tuning = {},
): Promise<EmulatorProcess> {
  const child = spawn(process.execPath, [SCRIPT, JSON.stringify(tuning)], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      SVC_EMULATOR_DATABASE_URL: databaseUrl,
      SVC_EMULATOR_VAULT_KEY: vaultKey.toString('base64'),
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  const stderrChanges = changeWaiters(() => stderr);
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString('utf8');
    stderrChanges.changed();
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const ready = await new Promise<{api_url: string; admin_token: string; org_id: string}>(
    (resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`no ready line in time; stderr: ${stderr}`)), 30_000);
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString('utf8');
        const nl = out.indexOf('\n');
        if (nl >= 0) {
          clearTimeout(timer);
          resolve(JSON.parse(out.slice(0, nl)));
        }
      });
      exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`emulator exited with ${code}: ${stderr}`));
      });
    },
  );
  const alive = () => child.exitCode === null && child.signalCode === null;
  return {
    apiUrl: ready.api_url,
    adminToken: ready.admin_token,
    orgId: ready.org_id,
    child,
    control: new EmulatorControl({url: ready.api_url, adminToken: ready.admin_token}),
    stderr: () => stderr,
    stderrUntil: (text, timeoutMs = 10_000) =>
      stderrChanges.until(
        (s) => (typeof text === 'string' ? s.includes(text) : text.test(s)),
        timeoutMs,
        () => `${String(text)} on stderr:\n${stderr}`,
      ),
    exited,
    async stop() {
      if (!alive()) return;
      child.kill('SIGTERM');
      await exited;
    },
    async kill() {
      if (!alive()) return;
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** GET with a bearer key; resolves to the status and parsed body. */
export async function apiGet(
  base: string,
  path: string,
  secret: string,
): Promise<{status: number; body: unknown}> {
  const res = await fetch(`${base}${path}`, {headers: {authorization: `Bearer ${secret}`}});
  const text = await res.text();
  return {status: res.status, body: text ? JSON.parse(text) : null};
}

export interface DatabaseOutage {
  /** `url` with its host and port turned to the proxy's. */
  url: string;
  /**
   * What a PostgreSQL restart looks like from the emulator: every open connection drops, and new ones are
   * refused for `downMs` before the server is back. Resolves with the number of connections dropped.
   */
  restart(downMs: number): Promise<number>;
  close(): Promise<void>;
}

/**
 * A TCP proxy on loopback in front of the test PostgreSQL, for one process: the test can restart "the server" for
 * that process alone, while the other test files keep using the real one.
 */
export async function databaseProxy(url: string): Promise<DatabaseOutage> {
  const target = new URL(url);
  const open = new Set<Socket>();
  const serve = () =>
    createServer((client) => {
      const upstream = connect(Number(target.port || 5432), target.hostname);
      open.add(client);
      open.add(upstream);
      const drop = () => {
        client.destroy();
        upstream.destroy();
        open.delete(client);
        open.delete(upstream);
      };
      client.on('error', drop).on('close', drop);
      upstream.on('error', drop).on('close', drop);
      client.pipe(upstream).pipe(client);
    });
  const listen = (server: Server, port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
    });
  let server = serve();
  const port = await listen(server, 0);
  const proxied = new URL(url);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(port);
  return {
    url: proxied.toString(),
    async restart(downMs) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      const dropped = [...open].length / 2;
      for (const socket of [...open]) socket.destroy();
      open.clear();
      await closed;
      await new Promise((resolve) => setTimeout(resolve, downMs));
      server = serve();
      await listen(server, port);
      return dropped;
    },
    async close() {
      for (const socket of [...open]) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
