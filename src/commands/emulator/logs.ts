import {Flags} from '@oclif/core';
import {BaseCommand} from '../../lib/base-command.js';
import {dataDirFlag} from '../../lib/flags.js';
import {followLogs, readLogs} from '../../services/emulator/logs.js';
import {renderLogLine} from '../../ui/request-log.js';

export default class EmulatorLogs extends BaseCommand {
  static override summary = "Show the emulator's request log, with the real reason of every refusal";
  static override description =
    "Each /v1, control and account-page request: time (the emulator's clock), method, path, status, duration, the key's id and prefix (never the secret), and for a refusal why: missing, malformed, unknown_key, revoked (at T), expired (at T), rate_limited (until T), forbidden… /v1 itself answers 401 the same way whatever the reason. Each emulator process keeps its own last 5,000 requests.";
  static override examples = [
    '<%= config.bin %> emulator logs',
    '<%= config.bin %> emulator logs --since 10m',
    '<%= config.bin %> emulator logs --follow --json',
  ];
  static override flags = {
    follow: Flags.boolean({char: 'f', description: 'keep printing requests as they come, until Ctrl+C'}),
    since: Flags.string({
      description:
        "only requests since this long ago by the emulator's clock (10m, 2h) or since an ISO 8601 time",
      helpValue: 'DURATION',
    }),
    'data-dir': dataDirFlag(),
  };

  async run() {
    const {flags} = await this.parse(EmulatorLogs);
    const options = {since: flags.since, dataDir: flags['data-dir'], env: process.env};
    if (!flags.follow) {
      // --json gives JSON lines, one per request, followed or not.
      const {value: lines, apiUrl} = await readLogs(options);
      this.note(
        lines.length > 0
          ? `The request log of the emulator at ${apiUrl}:`
          : `No requests in the log of the emulator at ${apiUrl}${flags.since ? ' in that time' : ''}.`,
      );
      for (const l of lines) this.showEach(l, renderLogLine);
      return;
    }
    const stop = new AbortController();
    const onSignal = () => stop.abort();
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    try {
      await followLogs({
        ...options,
        signal: stop.signal,
        // Followed, --json is a stream: one JSON line per request.
        onLines: (lines) => {
          for (const l of lines) this.showEach(l, renderLogLine);
        },
        // On stderr: stdout stays the stream of lines. Said at once, so a quiet emulator is not a silent command.
        onFollowing: (apiUrl) =>
          this.note(`Following the request log of the emulator at ${apiUrl}; Ctrl+C to stop.`),
        // On stderr even with --json: stdout stays the stream of lines.
        onGone: () => this.note('The emulator stopped.', {evenWithJson: true}),
      });
    } finally {
      process.removeListener('SIGINT', onSignal);
      process.removeListener('SIGTERM', onSignal);
    }
  }
}
