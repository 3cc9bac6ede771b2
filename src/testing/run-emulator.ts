// The emulator of a test run: the one `svc emulator exec` started around the run when there is one (the seed,
// SVC_API_URL and SVC_API_KEY are of it, so the files' orgs must be too), else one of the run's own, on the port
// SVC_TEST_EMULATOR_PORT names. Either way the run's files get a token that only makes orgs: the admin token
// stays with whoever started the emulator.
import {EmulatorControl, readRuntimeFile, type RuntimeInfo} from '@svc/client';
import {type EmulatorConnection, orgMakingConnection} from './connection.js';
import {startTestEmulator} from './index.js';

/** Where a run's own emulator listens (default: a free port). */
export const PORT_VARIABLE = 'SVC_TEST_EMULATOR_PORT';

/** The port SVC_TEST_EMULATOR_PORT names, or undefined when it is not set. */
export function portOf(env: NodeJS.ProcessEnv): number | undefined {
  const value = env[PORT_VARIABLE];
  if (value === undefined || value === '') return undefined;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65_535) {
    throw new Error(
      `${PORT_VARIABLE} must be a port, a whole number from 0 to 65535 (0 picks a free one); it is ${JSON.stringify(value)}`,
    );
  }
  return port;
}

/**
 * The emulator `svc emulator exec` runs the tests under: the one of SVC_EMULATOR_DATA_DIR, when it serves the
 * SVC_API_URL the tests are given (exec exports both); undefined otherwise.
 */
export async function emulatorOfExec(env: NodeJS.ProcessEnv): Promise<RuntimeInfo | undefined> {
  const dir = env.SVC_EMULATOR_DATA_DIR;
  const apiUrl = env.SVC_API_URL;
  if (!dir || !apiUrl) return undefined;
  const runtime = await readRuntimeFile(dir);
  return runtime && sameAddress(runtime.api_url, apiUrl) ? runtime : undefined;
}

function sameAddress(a: string, b: string): boolean {
  const trim = (url: string) => url.replace(/\/+$/, '');
  return trim(a) === trim(b);
}

export interface RunEmulator {
  connection: EmulatorConnection;
  stop(): Promise<void>;
}

/** The run's emulator: exec's when the run is under `svc emulator exec`, else one started here (and stopped by `stop`). */
export async function runEmulator(env: NodeJS.ProcessEnv): Promise<RunEmulator> {
  const port = portOf(env);
  const exec = await emulatorOfExec(env);
  if (exec) {
    const execPort = Number(new URL(exec.api_url).port);
    if (port !== undefined && port !== 0 && port !== execPort) {
      throw new Error(
        `${PORT_VARIABLE} is ${port}, but the tests run under \`svc emulator exec\`, whose emulator listens on ${execPort}: give exec \`--port ${port}\`, or unset ${PORT_VARIABLE}`,
      );
    }
    const connection = await orgMakingConnection(
      new EmulatorControl({url: exec.api_url, adminToken: exec.admin_token}),
    );
    return {connection, stop: async () => undefined};
  }
  const emulator = await startTestEmulator(port === undefined ? {} : {port});
  return {connection: emulator.connection, stop: () => emulator.stop()};
}
