// Runs one svc command inside this process, as `node bin/run.js ARGV` would run it in its own: the same
// environment, standard input, bytes on stdout and stderr, and exit code. The command sees the process it runs
// in (process.env, process.stdin, the two streams, the exit code) exactly as the spawned CLI's would be, so
// those are lent to it for the run and given back after; runs are queued, one at a time per process.
import {Console} from 'node:console';
import {Readable} from 'node:stream';

export interface RunCommandIo {
  /** The command's whole environment (a spawned CLI's env option). */
  env: NodeJS.ProcessEnv;
  /** Standard input, then its end; none is an empty input, as a spawned CLI given ''. */
  stdin?: string;
  /** Each chunk the command writes to stdout; collected into the result when absent. */
  stdout?: (chunk: string) => void;
  stderr?: (chunk: string) => void;
  /** process.argv[1]: the script a spawned CLI would run (bin/run.js), which the hints the CLI prints name. */
  script: string;
}

export interface RunCommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

type Write = typeof process.stdout.write;

let queue: Promise<unknown> = Promise.resolve();

/** `main` runs the CLI for argv (the bundle's `run`, bound to its package root). */
export function runCommand(
  main: (argv: string[]) => Promise<unknown>,
  argv: readonly string[],
  io: RunCommandIo,
): Promise<RunCommandResult> {
  const turn = queue.then(() => runAlone(main, [...argv], io));
  queue = turn.catch(() => undefined);
  return turn;
}

async function runAlone(
  main: (argv: string[]) => Promise<unknown>,
  argv: string[],
  io: RunCommandIo,
): Promise<RunCommandResult> {
  const out: string[] = [];
  const err: string[] = [];
  const lent = lendProcess({
    env: io.env,
    argv: [process.execPath, io.script, ...argv],
    stdin: io.stdin ?? '',
    stdout: io.stdout ?? ((c) => out.push(c)),
    stderr: io.stderr ?? ((c) => err.push(c)),
  });
  try {
    await main(argv);
    // oclif's handler ends the process with the code of a failure; here it is only noted (lent.exitCode).
  } catch (error) {
    // The bin script prints what escapes the CLI and exits 1: the same here.
    if (!lent.exited) {
      lent.stderr(`svc: ${(error as Error)?.stack ?? error}\n`);
      process.exitCode = 1;
    }
  } finally {
    lent.giveBack();
  }
  return {code: lent.exitCode(), stdout: out.join(''), stderr: err.join('')};
}

interface Loan {
  env: NodeJS.ProcessEnv;
  argv: string[];
  stdin: string;
  stdout: (chunk: string) => void;
  stderr: (chunk: string) => void;
}

function lendProcess(loan: Loan) {
  const saved = {
    env: process.env,
    argv: process.argv,
    exitCode: process.exitCode,
    exit: process.exit,
    // A command may set the process's umask (`emulator start` makes what it writes owner-only): it goes back too.
    umask: process.umask(),
    console: globalThis.console,
    stdin: Object.getOwnPropertyDescriptor(process, 'stdin'),
    stdoutWrite: process.stdout.write,
    stderrWrite: process.stderr.write,
    stdoutTty: Object.getOwnPropertyDescriptor(process.stdout, 'isTTY'),
    stderrTty: Object.getOwnPropertyDescriptor(process.stderr, 'isTTY'),
  };
  // Listeners a run adds to the process and its streams (oclif's EPIPE handlers, say) go with it.
  const emitters = [process, process.stdout, process.stderr] as NodeJS.EventEmitter[];
  const listening = emitters.map((e) => new Map(e.eventNames().map((n) => [n, new Set(e.rawListeners(n))])));
  let exited: number | undefined;
  process.env = {...loan.env};
  process.argv = loan.argv;
  process.exitCode = undefined;
  const stdin = Object.assign(Readable.from(loan.stdin === '' ? [] : [Buffer.from(loan.stdin)]), {
    isTTY: false,
    fd: 0,
  });
  Object.defineProperty(process, 'stdin', {configurable: true, enumerable: true, get: () => stdin});
  process.stdout.write = capture(loan.stdout);
  process.stderr.write = capture(loan.stderr);
  // oclif prints through console.log: a console of the process's own streams, as a new process has (a test
  // runner replaces the global one with its own).
  globalThis.console = new Console({stdout: process.stdout, stderr: process.stderr});
  // A spawned CLI writes into pipes: no terminal, whatever this process has.
  Object.defineProperty(process.stdout, 'isTTY', {configurable: true, value: false});
  Object.defineProperty(process.stderr, 'isTTY', {configurable: true, value: false});
  // oclif ends the process once a command has failed (its errors' handler): the code is what counts here.
  process.exit = ((code?: number | string | null) => {
    exited = Number(code ?? process.exitCode ?? 0);
  }) as typeof process.exit;
  return {
    get exited() {
      return exited !== undefined;
    },
    stderr: loan.stderr,
    exitCode: () => exited ?? Number(process.exitCode ?? 0),
    giveBack() {
      const code = exited ?? Number(process.exitCode ?? 0);
      process.env = saved.env;
      process.argv = saved.argv;
      process.exit = saved.exit;
      globalThis.console = saved.console;
      process.stdout.write = saved.stdoutWrite;
      process.stderr.write = saved.stderrWrite;
      restore(process.stdout, 'isTTY', saved.stdoutTty);
      restore(process.stderr, 'isTTY', saved.stderrTty);
      restore(process, 'stdin', saved.stdin);
      process.exitCode = saved.exitCode;
      process.umask(saved.umask);
      emitters.forEach((emitter, i) => {
        for (const name of emitter.eventNames()) {
          const before = listening[i]?.get(name);
          for (const l of emitter.rawListeners(name)) {
            if (!before?.has(l)) emitter.removeListener(name, l as (...args: unknown[]) => void);
          }
        }
      });
      exited = code;
    },
  };
}

function capture(sink: (chunk: string) => void): Write {
  return ((chunk: string | Uint8Array, encoding?: unknown, callback?: unknown) => {
    sink(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    const done = typeof encoding === 'function' ? encoding : callback;
    if (typeof done === 'function') queueMicrotask(() => (done as () => void)());
    return true;
  }) as Write;
}

function restore(target: object, key: string, descriptor: PropertyDescriptor | undefined): void {
  if (descriptor) Object.defineProperty(target, key, descriptor);
  else delete (target as Record<string, unknown>)[key];
}
