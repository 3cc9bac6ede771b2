// What a read command says about where it reads (on stderr, so stdout stays the table or the JSON document): the
// API address and what chose it, and, when a data dir names an emulator that serves another address, that the
// `svc emulator` commands act on that other one. Two emulators at once are then never mistaken for one.
import {DEFAULT_API_URL} from '@svc/client';

export interface ReadingFromOptions {
  env: NodeJS.ProcessEnv;
  /** The session's address. */
  apiUrl: string;
  /** The command's --api-url, when given. */
  apiUrlFlag?: string;
  /** The command's --data-dir, when it has one. */
  dataDir?: string;
}

/** What chose the address: the flag, the variable, the latest login, or the build's default. */
export function addressOrigin(options: Pick<ReadingFromOptions, 'env' | 'apiUrlFlag'>): string {
  if (options.apiUrlFlag !== undefined) return '--api-url';
  if (options.env.SVC_API_URL) return 'SVC_API_URL';
  return 'the latest login';
}

/** The sentence, or undefined for the service's default address (nothing there can be mistaken). */
export async function readingFrom(options: ReadingFromOptions): Promise<string | undefined> {
  if (options.apiUrl === DEFAULT_API_URL) return undefined;
  const said = `Reading ${options.apiUrl} (from ${addressOrigin(options)}).`;
  // Loaded here, not with the command: a read that shows no note (--json) never reads the emulator's files.
  const {namedDataDir, readRuntime, sameApiAddress} = await import('./emulator/locate.js');
  const dir = namedDataDir(options);
  if (dir === undefined) return said;
  const read = await readRuntime(dir);
  if (read.state !== 'running' || sameApiAddress(read.info.api_url, options.apiUrl)) return said;
  const named = options.dataDir !== undefined ? '--data-dir' : 'SVC_EMULATOR_DATA_DIR';
  return `${said} ${named} names another emulator, at ${read.info.api_url}, which \`svc emulator\` commands and \`svc trigger\` act on: set SVC_API_URL=${read.info.api_url} (with a key of it) to read that one`;
}
