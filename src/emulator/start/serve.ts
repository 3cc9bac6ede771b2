// Serving an emulator: the HTTP server on its port (with upgrades for sandbox links), emulator.json for the CLI,
// the delivery engine started once it answers, and the stop that undoes it all in order.
import type {Server} from 'node:http';
import type {AddressInfo} from 'node:net';
import {serve} from '@hono/node-server';
import {localAccountUrl} from '@svc/client';
import {removeRuntimeFile, writeRuntimeFile} from '../../emulator-layout/runtime.js';
import {createApp} from '../app.js';
import type {EmulatorContext} from '../context.js';
import {realTimers} from '../delivery/timers.js';
import {acceptUpgrades} from '../links/upgrade.js';
import {answerClientError} from '../net/client-error.js';
import {EmulatorStartError} from './options.js';

/** How long a stop waits for in-flight requests before it drops the connections still open. */
const CLOSE_GRACE_MS = 5_000;

/**
 * Serves the app, writes emulator.json and starts the delivery engine; `stop` undoes it all in order and then runs
 * `cleanup` (the stores).
 */
export async function serveEmulator(
  ctx: EmulatorContext,
  o: {
    port: number;
    host: string;
    dataDir: string;
    cleanup: () => Promise<void>;
    serveOnly: boolean;
    /** The engine starts once this has settled too (the start key, made meanwhile). */
    engineAfter?: Promise<unknown>;
    /** `cleanup` removes the data dir (one made for this run). */
    removesDataDir: boolean;
  },
): Promise<{apiUrl: string; accountUrl: string; stop(): Promise<void>}> {
  const app = createApp(ctx);
  const server = await listen(app.fetch, o.port, o.host);
  const address = server.address() as AddressInfo;
  const apiUrl = `http://${urlHostFor(address)}:${address.port}`;
  if (ctx.hosts.exposed) ctx.log(exposureWarning(address.address, address.port));
  // A browser on this machine opens the page at its own name, whose cookies no other local server receives.
  const accountUrl = ctx.hosts.ownNames ? localAccountUrl(address.port) : `${apiUrl}/account`;

  const {engine} = ctx;
  let engineStarted = false;
  let stopping: Promise<void> | undefined;
  let engineStarting: Promise<void> = Promise.resolve();
  const stop = () => {
    stopping ??= (async () => {
      await engineStarting;
      if (engineStarted) engine.closing();
      ctx.requestLog.close();
      ctx.linkTraffic.closeAll();
      await closeServer(server);
      if (engineStarted) {
        await engine
          .stop()
          .catch((err: unknown) => ctx.log(`engine did not stop cleanly: ${(err as Error).message}`));
      }
      await ctx.auth.flush();
      // A data dir made for this run goes whole with the cleanup, runtime file and all.
      if (!o.removesDataDir) await removeRuntimeFile(o.dataDir);
      await o.cleanup();
    })();
    return stopping;
  };

  try {
    await writeRuntimeFile(o.dataDir, {
      api_url: apiUrl,
      account_url: accountUrl,
      admin_token: ctx.adminToken,
      pid: process.pid,
      data_dir: o.dataDir,
    });
  } catch (err) {
    await stop();
    throw err;
  }

  // The engine starts on the next turn of the event loop, once the caller has been told the emulator is
  // ready: its first work (the delivery worker's first pass and loading its HTTP client) would otherwise
  // run ahead of it. Requests are served meanwhile, and events recorded meanwhile are picked up by that
  // first pass.
  engineStarting = Promise.all([
    new Promise<void>((resolvePromise) => setImmediate(resolvePromise)),
    o.engineAfter?.catch(() => undefined),
  ])
    .then(() => {
      if (stopping || o.serveOnly) return;
      engine.start();
      engineStarted = true;
    })
    .catch((err: unknown) => {
      ctx.log(`the emulator stops: a part of it could not start: ${(err as Error).message}`);
      void stop();
    });

  return {apiUrl, accountUrl, stop};
}

/**
 * The host of the addresses handed out (the ready line, emulator.json): one a client on this machine reaches and
 * the CLI accepts for plain http. Listening on every interface, that is loopback, never `0.0.0.0`.
 */
function urlHostFor(address: AddressInfo): string {
  if (address.address === '0.0.0.0') return '127.0.0.1';
  if (address.address === '::') return '[::1]';
  return address.family === 'IPv6' ? `[${address.address}]` : address.address;
}

function exposureWarning(address: string, port: number): string {
  const where = address === '0.0.0.0' || address === '::' ? `every interface (${address})` : address;
  return (
    `WARNING: listening on ${where}, beyond this machine: anyone who can reach port ${port} here can read ` +
    'the mailbox (/account/mailbox) and so sign in to the account page as anyone, the org owner included, ' +
    'make keys and endpoints there, and try tokens on the control surface (/_emulator). Keep the default ' +
    '--host 127.0.0.1 unless this network is yours alone.'
  );
}

function listen(
  fetch: (req: Request, env: unknown) => Response | Promise<Response>,
  port: number,
  host: string,
) {
  return new Promise<Server>((resolvePromise, reject) => {
    const server = serve({fetch, port, hostname: host}) as Server;
    server.on('clientError', answerClientError);
    acceptUpgrades(server);
    server.once('listening', () => {
      server.removeListener('error', reject);
      resolvePromise(server);
    });
    server.once('error', (err: NodeJS.ErrnoException) => {
      reject(
        err.code === 'EADDRINUSE'
          ? new EmulatorStartError(
              {
                option: 'port',
                says: (name) => `port ${port} on ${host} is already in use; pick another with ${name}`,
              },
              'port_in_use',
            )
          : new EmulatorStartError(`could not listen on ${host}:${port}: ${err.message}`, 'start_failed'),
      );
    });
  });
}

/** Stops accepting, lets in-flight requests finish, then drops idle keep-alive connections. */
function closeServer(server: Server): Promise<void> {
  return new Promise((resolvePromise) => {
    // A client holding a connection open must not keep the emulator from stopping: its connection is dropped
    // after a while (real time), and that wait ends as soon as the server has closed.
    const cancelWait = realTimers.setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
    // A response that ends after this (a relay stream the engine just ended) leaves its keep-alive connection idle
    // when the sweep below is past: with no keep-alive left, it is closed as soon as its response is done.
    server.keepAliveTimeout = 1;
    server.close(() => {
      cancelWait();
      resolvePromise();
    });
    server.closeIdleConnections();
  });
}
