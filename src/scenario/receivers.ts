// The receivers a scenario starts: each its own process (any language), told its port in an environment variable
// (PORT unless the file names another) with its endpoint's signing secret, and stopped when the scenario ends.
// Started means accepting connections on that port; a receiver that exits first fails the run with what it wrote.
// A receiver never outlives the run: in a group of its own, Ctrl+C at a terminal does not reach it, so it is stopped
// when the process ends or is interrupted before the run stopped it.
import {type ChildProcess, spawn} from 'node:child_process';
import {connect, createServer} from 'node:net';
import {isAbsolute, join} from 'node:path';
import {setTimeout as sleep} from 'node:timers/promises';
import {atExit} from '../at-exit.js';
import {SCENARIO_LIMITS} from '../definitions.js';
import type {ReceiverSpec} from './types.js';

export interface StartedReceiver {
  readonly name: string;
  readonly url: string;
  /** Its last lines of output (stdout and stderr, interleaved as they came). */
  output(): string;
  stop(): Promise<void>;
}

/** Lines of a receiver's output kept for the report. */
const KEPT_LINES = 40;
/** Between looks at whether the port accepts connections yet (nothing announces it). */
const PORT_LOOK_MS = 20;
/** How long a receiver has to end after SIGTERM before it is killed. */
const STOP_GRACE_MS = 3_000;

export class ReceiverStartError extends Error {
  constructor(
    message: string,
    readonly output: string,
  ) {
    super(message);
  }
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const {port} = server.address() as {port: number};
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export async function startReceiver(options: {
  name: string;
  spec: ReceiverSpec;
  /** The scenario file's folder: where it runs unless `cwd` says otherwise, relative to it. */
  folder: string;
  /** Variables it gets beside the caller's own (the secret, the API address and key). */
  env: Record<string, string>;
  baseEnv: NodeJS.ProcessEnv;
}): Promise<StartedReceiver> {
  const {name, spec} = options;
  const port = await freePort();
  const cwd =
    spec.cwd === undefined
      ? options.folder
      : isAbsolute(spec.cwd)
        ? spec.cwd
        : join(options.folder, spec.cwd);
  const env = {...options.baseEnv, ...options.env, ...spec.env, [spec.port_env ?? 'PORT']: String(port)};
  const [file, args] = Array.isArray(spec.command)
    ? [spec.command[0] as string, spec.command.slice(1)]
    : ['/bin/sh', ['-c', spec.command]];
  const lines: string[] = [];
  const keep = (chunk: Buffer) => {
    lines.push(
      ...chunk
        .toString('utf8')
        .split('\n')
        .filter((l) => l !== ''),
    );
    lines.splice(0, Math.max(0, lines.length - KEPT_LINES));
  };
  // A group of its own: a shell line's children stop with it.
  const child = spawn(file, args, {cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true});
  const forget = atExit(() => signalGroup(child, 'SIGTERM'));
  child.once('exit', forget);
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<string>((resolve) => {
    child.once('error', (err) =>
      resolve(`could not be started (${(err as NodeJS.ErrnoException).code ?? err.message})`),
    );
    child.once('exit', (code, signal) => resolve(signal ? `ended on ${signal}` : `exited with ${code}`));
  });
  const output = () => lines.join('\n');
  const stop = () => stopChild(child, exited);
  const listening = await Promise.race([waitForPort(port), exited.then((why) => ({ended: why}))]);
  if (listening !== true) {
    await stop();
    const why =
      'ended' in listening
        ? listening.ended
        : `did not accept connections on port ${port} within ${SCENARIO_LIMITS.receiverStartMs / 1000} s`;
    throw new ReceiverStartError(`the receiver ${name} ${why}`, output());
  }
  return {name, url: `http://127.0.0.1:${port}`, output, stop};
}

/** Whether the port accepts a connection within the start limit: looked at until it does. */
async function waitForPort(port: number): Promise<true | {ended: string}> {
  const deadline = Date.now() + SCENARIO_LIMITS.receiverStartMs;
  while (Date.now() < deadline) {
    if (await accepts(port)) return true;
    await sleep(PORT_LOOK_MS);
  }
  return {
    ended: `did not accept connections on port ${port} within ${SCENARIO_LIMITS.receiverStartMs / 1000} s`,
  };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({port, host: '127.0.0.1'});
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Sends `signal` to the receiver's whole group (a shell line and its children). */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Gone already.
  }
}

async function stopChild(child: ChildProcess, exited: Promise<string>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  signalGroup(child, 'SIGTERM');
  const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), STOP_GRACE_MS);
  await exited;
  clearTimeout(timer);
}
