// Runs the built CLI as a user would: a real process (runCli), or the same built CLI inside the test's own
// process (runCommand: the same environment, input, bytes and exit code, without a Node start per command).
import {spawn} from 'node:child_process';
import {fileURLToPath, pathToFileURL} from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/run.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

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
    // A program may end without reading its input (`--version` answers before anything reads stdin): the
    // write then fails with EPIPE, which says nothing about the program.
    child.stdin?.on('error', () => undefined);
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

export function runCli(args: string[], options: RunCliOptions = {}): Promise<CliResult> {
  return runProcess(process.execPath, [BIN, ...args], {
    env: cliEnv(options),
    input: options.input ?? '',
    timeoutMs: options.timeoutMs,
  });
}

/** The environment runCli gives every command: nothing of the test process's but PATH and HOME. */
function cliEnv(options: RunCliOptions): NodeJS.ProcessEnv {
  return {PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', ...options.env};
}

interface InProcessCli {
  run(argv: string[], options: RunCliOptions): Promise<CliResult>;
}

let inProcess: Promise<InProcessCli> | undefined;

async function loadInProcess(): Promise<InProcessCli> {
  const rootUrl = pathToFileURL(ROOT);
  // The built CLI, as bin/run.js loads it: its bundle, compiled once here and run afresh for each command.
  const loader = (await import(
    new URL('dist/src/cli/loader.js', rootUrl).href
  )) as typeof import('../../src/cli/loader.js');
  const runner = (await import(
    new URL('dist/src/cli/run-command.js', rootUrl).href
  )) as typeof import('../../src/cli/run-command.js');
  const loaded = await loader.loadBundle({root: rootUrl});
  if (!loaded) throw new Error('dist/cli/bundle.cjs is missing: run `npm run build`');
  const file = fileURLToPath(new URL('dist/cli/bundle.cjs', rootUrl));
  return {
    run: (argv, options) =>
      runner.runCommand(
        // Each command gets a CLI of its own, made inside the environment it runs in (module state read at load).
        (args) => loader.instantiate(loaded.script, file, rootUrl).run(ROOT, args),
        argv,
        {env: cliEnv(options), stdin: options.input ?? '', script: BIN},
      ),
  };
}

/**
 * Runs one command of the built CLI in this process: what `runCli` answers (exit code, stdout, stderr), for tests
 * that check what a command prints. Start-up, signals, terminals and the installed layout stay with runCli.
 */
export async function runCommand(args: string[], options: RunCliOptions = {}): Promise<CliResult> {
  inProcess ??= loadInProcess();
  return (await inProcess).run(args, options);
}
