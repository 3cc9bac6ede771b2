// What a command's session is, for the commands and the services that use one, and where BaseCommand finds how to
// open it. src/auth opens it (the credentials, then a client for them); src/lib stands below src/auth, so the
// opener is handed in at start-up (src/cli/session.ts) and src/lib knows only these shapes.
import type {ClientOptions, SvcClient} from '@svc/client';

/** The client for the key and address in use, and where the key came from. */
export interface CommandSession {
  client: SvcClient;
  credentials: {apiKey: string; apiUrl: string; source: 'env' | 'keychain' | 'file'};
}

/** Transport and retry settings of a command's client (the TUI and MCP fail fast). */
export type ClientSettings = Omit<ClientOptions, 'apiUrl' | 'apiKey'>;

export interface SessionRequest {
  env: NodeJS.ProcessEnv;
  /** The command's --api-url. */
  apiUrl: string | undefined;
  client?: ClientSettings;
  /** What the credentials store repaired on its own (a file others could read), said as a warning. */
  warn?: (message: string) => void;
}

export type SessionOpener = (request: SessionRequest) => Promise<CommandSession>;

let opener: SessionOpener | undefined;

/** How every command opens its session: called once at start-up, by src/cli/session.ts. */
export function opensSessionsWith(open: SessionOpener): void {
  opener = open;
}

export function openSessionFor(request: SessionRequest): Promise<CommandSession> {
  if (!opener) throw new Error('no session opener: the CLI hands it in at start-up (src/cli/session.ts)');
  return opener(request);
}
