// Runs the built CLI as a user would: a real process, real stdin/stdout, an isolated config dir.
import {spawn} from 'node:child_process';
import {fileURLToPath} from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/run.js', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunCliOptions {
  env?: NodeJS.ProcessEnv;
  input?: string;
  timeoutMs?: number;
}

export interface RunProcessOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Written to stdin, which is then closed; no stdin at all when undefined. */
  input?: string;
  timeoutMs?: number;
}

/** Runs a program to its end with stdout and stderr captured; killed (SIGKILL) when it outlasts timeoutMs. */
export function runProcess(
  command: string,
  args: string[],
  options: RunProcessOptions = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env: options.env,
      cwd: options.cwd,
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d) => {
      stdout += d;
    });
    child.stderr?.on('data', (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 20_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({code, stdout, stderr});
    });
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

export function runCli(args: string[], options: RunCliOptions = {}): Promise<CliResult> {
  return runProcess(process.execPath, [BIN, ...args], {
    env: {PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', ...options.env},
    input: options.input ?? '',
    timeoutMs: options.timeoutMs,
  });
}
