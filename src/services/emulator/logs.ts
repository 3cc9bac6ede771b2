// `svc emulator logs [--since D] [--follow]`: the request log of the running emulator, with the real reason of
// each refusal. Following holds one request open at a time (the emulator answers as soon as there is news).
import {EmulatorControlError, type RequestLogEntry} from '@svc/client';
import {type At, type ConnectOptions, connectControl, withControlAt} from './connect.js';

/** How long one follow request is held by the emulator when nothing happens. */
const FOLLOW_WAIT_SECONDS = 20;

export interface LogsOptions extends ConnectOptions {
  /** A duration back from the emulator's clock (`10m`) or an ISO 8601 time. */
  since?: string;
}

/** The fields a log line shows: the entry without its place in the process's sequence. */
export type LogLine = Omit<RequestLogEntry, 'seq'>;

const line = ({seq: _seq, ...rest}: RequestLogEntry): LogLine => rest;

/** The log's lines, and the address of the emulator that kept them. */
export function readLogs(options: LogsOptions): Promise<At<LogLine[]>> {
  return withControlAt(options, async (control) =>
    (await control.logs({since: options.since})).data.map(line),
  );
}

export interface FollowOptions extends LogsOptions {
  signal: AbortSignal;
  onLines(lines: LogLine[]): void;
  /** Connected: the address of the emulator followed, before any line. */
  onFollowing(apiUrl: string): void;
  /** The emulator went away while being followed. */
  onGone(): void;
}

export async function followLogs(options: FollowOptions): Promise<void> {
  const {control, info} = await connectControl(options);
  options.onFollowing(info.api_url);
  let after = 0;
  let since = options.since;
  while (!options.signal.aborted) {
    let page: Awaited<ReturnType<typeof control.logs>>;
    try {
      page = await control.logs({
        after,
        since,
        wait: after === 0 && since !== undefined ? 0 : FOLLOW_WAIT_SECONDS,
      });
    } catch (err) {
      if (options.signal.aborted) return;
      if (err instanceof EmulatorControlError && err.code === 'unreachable') {
        options.onGone();
        return;
      }
      throw err;
    }
    // `since` chooses where the follow starts; after that, entries come by sequence.
    since = undefined;
    if (page.data.length > 0) options.onLines(page.data.map(line));
    after = page.last;
  }
}
