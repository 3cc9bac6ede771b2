// `svc emulator exec -- CMD ARGS…`: a throwaway emulator around one command (tests, CI), then its exit code.
import {spawn} from 'node:child_process';
import {constants} from 'node:os';
import type {ClockSetting, SignatureClock} from '../../definitions.js';
import {UserError, usageError} from '../../lib/errors.js';
import {ExitCode} from '../../lib/exit-codes.js';
import {seedSecrets, writeSecretsFile} from './seed-secrets.js';
import {checkWritableFolder, resolveStartOptions, secretsNote, startOrExplain} from './start.js';
import {writeSnapshotFile} from './state/snapshot-file.js';

export interface EmulatorExecOptions {
  command: string[];
  /** Where the emulator listens (default 0: a free port). */
  port?: number;
  dataDir?: string;
  databaseUrl?: string;
  clock?: ClockSetting;
  signatureClock?: SignatureClock;
  allowLocalEndpoints?: boolean;
  /** Delivery chaos for every endpoint (see `svc emulator start --chaos`). */
  chaos?: string;
  /** A seed file loaded before the command runs. */
  seed?: string;
  /** Where the secrets the seed left to the emulator are written (owner-only JSON) before the command runs. */
  secretsOut?: string;
  /** A snapshot (or seed) loaded in place of the state before the command runs. */
  importFile?: string;
  /** Where the state is saved once the command has ended, whatever its exit code. */
  exportOnExit?: string;
  env: NodeJS.ProcessEnv;
  /** A line for a person on stderr (the command writes it: services write to no stream). */
  log: (line: string) => void;
  /** stderr is a terminal: a person reads it, so the secrets a seed left are shown there once. */
  terminal: boolean;
  /** Where SIGINT/SIGTERM arrive; they are passed on to the command. Default: this process. */
  signals?: NodeJS.EventEmitter;
}

export async function emulatorExec(options: EmulatorExecOptions): Promise<{exitCode: number}> {
  const [cmd, ...args] = options.command;
  if (!cmd) throw usageError('name the command to run after --, like `svc emulator exec -- npm test`');
  const {log} = options;
  if (options.exportOnExit) await checkWritableFolder(options.exportOnExit);
  const emulator = await startOrExplain({
    ...resolveStartOptions(
      {
        port: options.port ?? 0,
        dataDir: options.dataDir,
        inMemory: !options.dataDir,
        databaseUrl: options.databaseUrl,
        clock: options.clock,
        signatureClock: options.signatureClock,
        allowLocalEndpoints: options.allowLocalEndpoints,
        chaos: options.chaos,
        seed: options.seed,
        importFile: options.importFile,
        env: options.env,
      },
      log,
    ),
    // A key for the command, so `svc` and the client work inside it without any set-up; made as the emulator
    // starts, not through its HTTP surface behind the delivery engine's first work (a quarter second).
    startKey: {name: 'exec', createdBy: 'svc emulator exec'},
  });
  try {
    const secrets = seedSecrets(emulator.apiUrl, emulator.seeded);
    if (options.secretsOut) await writeSecretsFile(options.secretsOut, secrets);
    if (secrets && options.terminal && !options.secretsOut) {
      // A person at a terminal sees them once; a CI log never does.
      for (const org of secrets.orgs) {
        for (const k of org.keys) log(`svc emulator: seed key ${k.id} (${k.name}): ${k.secret}`);
        for (const w of org.webhooks) log(`svc emulator: seed endpoint ${w.id} (${w.url}): ${w.secret}`);
      }
    } else if (secrets) log(`svc emulator: ${secretsNote(options.secretsOut)}`);
    const key = emulator.startKey as {secret: string};
    const env = {
      ...options.env,
      SVC_API_URL: emulator.apiUrl,
      SVC_API_KEY: key.secret,
      SVC_EMULATOR_DATA_DIR: emulator.dataDir,
    };
    const exitCode = await run(cmd, args, env, options.signals ?? process);
    if (options.exportOnExit) {
      // The state after the command, as an artifact of the run (a failed suite's state is the one to look at).
      await writeSnapshotFile(options.exportOnExit, await emulator.exportState());
      log(`svc emulator: state saved to ${options.exportOnExit}`);
    }
    return {exitCode};
  } finally {
    await emulator.stop();
  }
}

function run(
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  signals: NodeJS.EventEmitter,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {stdio: 'inherit', env});
    const forward = (signal: NodeJS.Signals) => child.kill(signal);
    signals.on('SIGINT', forward);
    signals.on('SIGTERM', forward);
    const detach = () => {
      signals.off('SIGINT', forward);
      signals.off('SIGTERM', forward);
    };
    child.once('error', (err: NodeJS.ErrnoException) => {
      detach();
      reject(
        err.code === 'ENOENT'
          ? new UserError(`command not found: ${cmd}`, {
              code: 'command_not_found',
              exitCode: ExitCode.commandNotFound,
              suggestions: ['Check its spelling, and that it is installed and on PATH'],
            })
          : new UserError(`could not run ${cmd}: ${err.message}`, {
              exitCode: err.code === 'EACCES' ? ExitCode.commandNotExecutable : ExitCode.error,
            }),
      );
    });
    child.once('exit', (code, signal) => {
      detach();
      // The shell convention for a command killed by a signal: 128 + its number.
      resolve(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0));
    });
  });
}
