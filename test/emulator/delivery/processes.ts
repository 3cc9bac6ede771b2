// Real processes for end-to-end delivery tests: the built CLI's emulator and `svc listen`, with line-wise output.
import {type ChildProcessWithoutNullStreams, spawn} from 'node:child_process';
import {BIN} from '../../helpers/run-cli.js';
import {changeWaiters} from './helpers.js';

export interface Spawned {
  child: ChildProcessWithoutNullStreams;
  stdoutLines: string[];
  stderr(): string;
  /** Resolves once stderr so far holds `text`, checked as each chunk arrives. */
  stderrUntil(text: string, timeoutMs?: number): Promise<string>;
  /** Resolves with the first stdout line matching `test`. */
  line(test: (line: string) => boolean, timeoutMs?: number): Promise<string>;
  exited: Promise<number | null>;
}

export function spawnCli(args: string[], env: NodeJS.ProcessEnv = {}): Spawned {
  return spawnProcess(process.execPath, [BIN, ...args], env);
}

/** Any program (a script of the test's own), with the same line-wise output as spawnCli. */
export function spawnProcess(command: string, args: string[], env: NodeJS.ProcessEnv = {}): Spawned {
  const child = spawn(command, args, {
    env: {PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', ...env},
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const stdoutLines: string[] = [];
  let partial = '';
  let stderr = '';
  const waiters: {test: (l: string) => boolean; resolve: (l: string) => void}[] = [];
  child.stdout.on('data', (d: Buffer) => {
    partial += d.toString('utf8');
    let nl = partial.indexOf('\n');
    while (nl >= 0) {
      const line = partial.slice(0, nl);
      partial = partial.slice(nl + 1);
      nl = partial.indexOf('\n');
      stdoutLines.push(line);
      for (const w of [...waiters]) {
        if (w.test(line)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(line);
        }
      }
    }
  });
  const stderrChanges = changeWaiters(() => stderr);
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString('utf8');
    stderrChanges.changed();
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return {
    child,
    stdoutLines,
    stderr: () => stderr,
    stderrUntil: (text, timeoutMs = 30_000) =>
      stderrChanges.until(
        (s) => s.includes(text),
        timeoutMs,
        () => `${JSON.stringify(text)} on stderr:\n${stderr}`,
      ),
    exited,
    line(test, timeoutMs = 30_000) {
      const seen = stdoutLines.find(test);
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(
              new Error(`no matching line in time; stdout: ${stdoutLines.join('\n')}\nstderr: ${stderr}`),
            ),
          timeoutMs,
        );
        waiters.push({
          test,
          resolve: (l) => {
            clearTimeout(timer);
            resolve(l);
          },
        });
      });
    },
  };
}

export interface EmulatorProcess extends Spawned {
  apiUrl: string;
}

/** `svc emulator start --json` on a data dir; resolves once its ready line is out. */
export async function startEmulatorProcess(
  dataDir: string,
  extra: string[] = [],
  env: NodeJS.ProcessEnv = {},
): Promise<EmulatorProcess> {
  const p = spawnCli(['emulator', 'start', '--data-dir', dataDir, '--port', '0', '--json', ...extra], env);
  const ready = await Promise.race([
    p.line((l) => l.startsWith('{')),
    p.exited.then((code) => {
      throw new Error(`emulator exited with ${code}: ${p.stderr()}`);
    }),
  ]);
  return {...p, apiUrl: (JSON.parse(ready) as {api_url: string}).api_url};
}

export async function stopProcess(p: Spawned | undefined, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (!p || p.child.exitCode !== null || p.child.signalCode !== null) return;
  p.child.kill(signal);
  await p.exited;
}
