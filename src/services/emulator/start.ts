// `svc emulator start`: runs the emulator in the foreground until the process is told to stop.
import {registerEmulator} from './registry.js';
import {constants} from 'node:fs';
import {access} from 'node:fs/promises';
import {dirname, resolve} from 'node:path';
import {type StateLoadResult, isLoopbackHost} from '@svc/client';
import type {
  RunningEmulator,
  StartEmulatorOptions,
  StartOptionError,
  StartOptionName,
} from '../../emulator/index.js';
import {CHAOS_EXAMPLE, ChaosSettingsError, describeChaos, parseChaosSpec} from '../../schemas/chaos.js';
import {parseVaultKey, VaultKeyError} from '../../schemas/vault-key.js';
import {type ClockSetting, jsonText, type SignatureClock} from '../../definitions.js';
import {UserError, usageError} from '../../lib/errors.js';
import {currentSvcCommand} from '../../lib/invocation.js';
import {emulatorDataDir, templateCacheDir} from '../../user-dirs.js';
import {seedSecrets, withoutSecrets, writeSecretsFile} from './seed-secrets.js';
import {writeSnapshotFile} from './state/snapshot-file.js';

/** What the ready message says: where the emulator answers, where its data lives, and the key to start with. */
export interface ReadyView {
  apiUrl: string;
  accountUrl: string;
  /** Where the data lives, for people: a folder, "in memory" or "PostgreSQL". */
  storage: string;
  orgId: string;
  /** Someone owns the org already: the first address to sign in no longer becomes its owner. */
  owned?: boolean;
  clockMode: string;
  /** The delivery chaos every endpoint gets, in the flag's form; absent when deliveries are plain. */
  chaos?: string;
  /** Which time delivery signatures carry (worth saying only on a manual clock). */
  signatureClock?: 'real' | 'emulator';
  /** The failed-authentication limit is off (`--no-rate-limit`): said on a line of its own. */
  rateLimitOff?: boolean;
  /** `reused`: the data dir's key from an earlier start, which still works. */
  demoKey?: {secret: string; reused: boolean};
  /** The emulator keeps nothing after it stops, so its demo key goes with it. */
  inMemory?: boolean;
  /** How svc runs from the user's folder: `svc`, `npx svc` or `node /path/to/bin/run.js`. */
  svc: string;
  /** Set when commands in other terminals must be told where this emulator keeps its runtime file. */
  dataDir?: string;
  /** False when the API address is one the CLI refuses for plain http (a non-loopback `--host`). */
  cliCanReach?: boolean;
}

/** How the command shows what the service reports (the screens live above the services). */
export interface StartDisplay {
  ready(view: ReadyView): string;
  loaded(source: string, result: StateLoadResult): string;
}

export interface EmulatorStartOptions {
  display: StartDisplay;
  port?: number;
  host?: string;
  /** Names besides the loopback ones and --host that requests may be addressed to. */
  allowedHosts?: string[];
  dataDir?: string;
  inMemory?: boolean;
  /** Falls back to SVC_EMULATOR_DATABASE_URL. Never printed: it may hold a password. */
  databaseUrl?: string;
  clock?: ClockSetting;
  signatureClock?: SignatureClock;
  noVaultKey?: boolean;
  allowLocalEndpoints?: boolean;
  /**
   * False turns the failed-authentication limit off, for API fuzzers (`--no-rate-limit`); undefined follows
   * SVC_EMULATOR_RATE_LIMIT (`off` or `on`), else on.
   */
  rateLimit?: boolean;
  /** Delivery chaos for every endpoint: `duplicate=0.2,reorder=0.3,delay=0-5s,seed=42`. */
  chaos?: string;
  demo?: boolean;
  /** A seed file loaded at start. */
  seed?: string;
  /** Where the secrets the seed left to the emulator are written (owner-only JSON). */
  secretsOut?: string;
  /** A snapshot (or seed) loaded at start in place of the state. */
  importFile?: string;
  /** Where the state is saved when the emulator is told to stop. */
  exportOnExit?: string;
  json?: boolean;
  env: NodeJS.ProcessEnv;
  /** The ready message (with json its JSON line), for stdout: the command writes it (services write to no stream). */
  print: (text: string) => void;
  /** A line for a person on stderr: progress, where the seed's secrets went, the emulator's own news. */
  log: (line: string) => void;
  /** stdout is a terminal: a person reads it, so the secrets a seed left are shown there. */
  terminal: boolean;
  /** Resolves when the emulator should stop (SIGINT/SIGTERM in the command). */
  untilStopped: Promise<unknown>;
}

/** Translates CLI-level options (env vars included) into startEmulator's, with clear errors for bad values. */
export function resolveStartOptions(
  o: Omit<
    EmulatorStartOptions,
    'print' | 'log' | 'terminal' | 'untilStopped' | 'json' | 'exportOnExit' | 'display'
  >,
  log: (line: string) => void,
): StartEmulatorOptions {
  const envKey = o.env.SVC_EMULATOR_VAULT_KEY;
  let vaultKey: Buffer | undefined;
  if (envKey && !o.noVaultKey) {
    try {
      vaultKey = parseVaultKey(envKey);
    } catch (err) {
      if (err instanceof VaultKeyError) throw usageError(`SVC_EMULATOR_VAULT_KEY: ${err.message}`);
      throw err;
    }
  }
  const databaseUrl = o.databaseUrl ?? (o.env.SVC_EMULATOR_DATABASE_URL || undefined);
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    // The value itself is not repeated: it may contain a password.
    throw usageError('the database URL must start with postgres:// or postgresql://');
  }
  if (o.port !== undefined && (!Number.isInteger(o.port) || o.port < 0 || o.port > 65535)) {
    throw usageError('--port must be a whole number from 0 to 65535');
  }
  const rateLimit = o.rateLimit ?? rateLimitFromEnv(o.env.SVC_EMULATOR_RATE_LIMIT);
  return {
    ...(rateLimit ? {} : {rateLimit: false}),
    chaos: o.chaos === undefined ? undefined : chaosFlag(o.chaos),
    port: o.port,
    host: o.host,
    allowedHosts: o.allowedHosts,
    // The CLI owns where its files live: the user data dir unless told otherwise, the user cache for templates.
    dataDir: o.dataDir ?? (o.inMemory ? undefined : emulatorDataDir(o.env)),
    templateCacheDir: templateCacheDir(o.env),
    // The account page suggests commands spelled as this CLI was run.
    svcCommand: currentSvcCommand(o.env),
    inMemory: o.inMemory,
    databaseUrl,
    clock: o.clock,
    signatureClock: o.signatureClock,
    noVaultKey: o.noVaultKey,
    vaultKey,
    allowLocalEndpoints: o.allowLocalEndpoints,
    demo: o.demo,
    seed: o.seed,
    importFile: o.importFile,
    log,
  };
}

/** SVC_EMULATOR_RATE_LIMIT: `off` turns the failed-authentication limit off, `on` (or unset) keeps it. */
export function rateLimitFromEnv(value: string | undefined): boolean {
  const v = value?.trim().toLowerCase();
  if (v === undefined || v === '' || v === 'on') return true;
  if (v === 'off') return false;
  throw usageError(`SVC_EMULATOR_RATE_LIMIT must be off or on, not ${JSON.stringify(value)}`, [
    'Unset it to keep the limit, or set SVC_EMULATOR_RATE_LIMIT=off for an API fuzzer',
  ]);
}

/** `--chaos SPEC` as settings, or a usage error that shows the form. */
export function chaosFlag(spec: string): ReturnType<typeof parseChaosSpec> {
  try {
    return parseChaosSpec(spec);
  } catch (err) {
    if (err instanceof ChaosSettingsError) {
      throw usageError(`--chaos: ${err.message}`, [`Example: --chaos ${CHAOS_EXAMPLE}`]);
    }
    throw err;
  }
}

export async function startOrExplain(options: StartEmulatorOptions): Promise<RunningEmulator> {
  // The emulator (HTTP server, database, delivery worker) loads only for the commands that start one.
  const {EmulatorStartError, StartOptionError, startEmulator} = await import('../../emulator/index.js');
  try {
    return await startEmulator(options);
  } catch (err) {
    if (err instanceof EmulatorStartError) {
      const message = inFlags(err);
      if (err.code === 'invalid_option') throw usageError(message);
      throw new UserError(message, {
        code: err.code,
        suggestions:
          err.code === 'already_running'
            ? ['Stop it with `svc emulator stop`, or pass another --data-dir']
            : err.code === 'port_in_use'
              ? ['Pass --port 0 to pick a free port']
              : [],
      });
    }
    // Connection errors from pg may quote the URL's host but never the password; keep only the message.
    const message = err instanceof StartOptionError ? inFlags(err) : (err as Error).message;
    throw new UserError(`the emulator could not start: ${message}`, {
      code: 'start_failed',
    });
  }
}

/** The library's errors name its options (`the \`port\` option`); the CLI's name the flags that set them. */
const OPTION_FLAGS: Record<StartOptionName, string> = {
  port: '--port',
  dataDir: '--data-dir',
  inMemory: '--in-memory',
  databaseUrl: '--database-url',
};

function inFlags(err: StartOptionError): string {
  return err.option ? err.naming(OPTION_FLAGS[err.option]) : err.message;
}

/** Said where the secrets a seed left were not printed. */
export function secretsNote(secretsOut: string | undefined): string {
  return secretsOut
    ? `The secrets the seed left to the emulator are in ${secretsOut} (owner-only); they are printed only to a terminal.`
    : 'The seed left secrets to the emulator; they are printed only to a terminal. Pass --secrets-out FILE to keep them.';
}

export async function emulatorStart(options: EmulatorStartOptions): Promise<void> {
  const {log, print} = options;
  if (options.exportOnExit) await checkWritableFolder(options.exportOnExit);
  // This process only serves the emulator: whatever its database writes while it runs is owner-only too.
  process.umask(0o077);
  const emulator = await startOrExplain(resolveStartOptions(options, log));
  const secrets = seedSecrets(emulator.apiUrl, emulator.seeded);
  if (options.secretsOut) {
    try {
      await writeSecretsFile(options.secretsOut, secrets);
    } catch (err) {
      // Refused (a link, another user's file) or failed: the emulator is not left running without its secrets.
      await emulator.stop();
      throw err;
    }
  }
  // Secrets go to a person at a terminal, or to the --secrets-out file; never into a piped log.
  const shown = options.terminal;
  const seeded = emulator.seeded && !shown ? withoutSecrets(emulator.seeded) : emulator.seeded;
  const unregister = await registerEmulator(options.env, emulator.dataDir);
  if (options.json) {
    const ready: Record<string, string> = {
      api_url: emulator.apiUrl,
      account_url: emulator.accountUrl,
      data_dir: emulator.dataDir,
    };
    if (emulator.demoKey) ready.demo_api_key = emulator.demoKey.secret;
    if (!emulator.context.limiter.enabled) ready.rate_limit = 'off';
    const loaded = {
      ...(emulator.imported ? {import: emulator.imported} : {}),
      ...(seeded ? {seed: seeded} : {}),
      ...(options.secretsOut ? {secrets_out: options.secretsOut} : {}),
    };
    print(`${jsonText({...ready, ...loaded})}\n`);
  } else {
    print(readyMessage(emulator, options));
    if (emulator.imported && options.importFile) {
      print(`\n${options.display.loaded(options.importFile, emulator.imported)}`);
    }
    if (seeded && options.seed) print(`\n${options.display.loaded(options.seed, seeded)}`);
  }
  if (secrets && !shown) log(secretsNote(options.secretsOut));
  await options.untilStopped;
  log('svc emulator: stopping…');
  let saveError: unknown;
  if (options.exportOnExit) {
    try {
      await writeSnapshotFile(options.exportOnExit, await emulator.exportState());
      log(`svc emulator: state saved to ${options.exportOnExit}`);
    } catch (err) {
      saveError = err;
    }
  }
  await emulator.stop();
  await unregister();
  log('svc emulator: stopped');
  if (saveError !== undefined) {
    throw new UserError(
      `the state could not be saved to ${options.exportOnExit}: ${(saveError as Error).message}`,
      {
        code: 'export_failed',
        cause: saveError,
      },
    );
  }
}

/** Found out at start, not after hours of work at exit: the folder the state will be saved in must take files. */
export async function checkWritableFolder(path: string): Promise<void> {
  try {
    await access(dirname(resolve(path)), constants.W_OK);
  } catch {
    throw usageError(
      `--export-on-exit ${path}: the folder ${dirname(resolve(path))} does not exist or is not writable`,
    );
  }
}

/** The data dir to name in printed commands: none when it is the default that every terminal finds by itself. */
function dataDirToName(dataDir: string): string | undefined {
  return resolve(dataDir) === resolve(emulatorDataDir({})) ? undefined : dataDir;
}

function readyMessage(e: RunningEmulator, o: EmulatorStartOptions): string {
  const storage =
    o.databaseUrl || o.env.SVC_EMULATOR_DATABASE_URL ? 'PostgreSQL' : o.inMemory ? 'in memory' : e.dataDir;
  return o.display.ready({
    apiUrl: e.apiUrl,
    accountUrl: e.accountUrl,
    storage,
    orgId: e.orgId,
    owned: e.owned,
    clockMode:
      e.clock.mode === 'scaled' ? `scaled:${e.clock.scale} (${e.clock.scale}× real time)` : e.clock.mode,
    chaos: o.chaos === undefined ? undefined : describeChaos(chaosFlag(o.chaos)),
    signatureClock: o.signatureClock ?? 'real',
    rateLimitOff: !e.context.limiter.enabled,
    demoKey: e.demoKey,
    inMemory: o.inMemory,
    svc: currentSvcCommand(o.env),
    dataDir: dataDirToName(e.dataDir),
    cliCanReach: isLoopbackHost(new URL(e.apiUrl).hostname),
  });
}
