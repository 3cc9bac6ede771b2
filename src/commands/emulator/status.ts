import {BaseCommand} from '../../lib/base-command.js';
import {dataDirFlag} from '../../lib/flags.js';
import {emulatorStatus} from '../../services/emulator/status.js';
import {dataDirArg, portArg} from '../../lib/hints.js';
import {ExitCode} from '../../lib/exit-codes.js';

export default class EmulatorStatus extends BaseCommand {
  static override summary = 'Show whether the emulator runs, where, and on which clock';
  static override description =
    'When no emulator runs for the data dir it says so and exits 3; with --json: {"running": false, "data_dir": …}.';
  static override examples = [
    '<%= config.bin %> emulator status',
    '<%= config.bin %> emulator status --json',
  ];
  static override flags = {
    'data-dir': dataDirFlag(),
  };

  async run() {
    const {flags} = await this.parse(EmulatorStatus);
    const status = await emulatorStatus({dataDir: flags['data-dir'], env: process.env});
    await this.show(status, (s) =>
      s.running
        ? [
            `Emulator running (pid ${s.pid})`,
            `  API:          ${s.api_url}`,
            `  Account page: ${s.account_url}`,
            `  Data dir:     ${s.data_dir}`,
            `  Org:          ${s.org_id}`,
            `  Clock:        ${s.clock.mode}, ${s.clock.now}`,
            ...(s.rate_limit === 'off'
              ? [
                  '  Rate limit:   OFF: wrong keys are never answered 429 (--no-rate-limit; for API fuzzers only)',
                ]
              : []),
          ]
            .map((line) => `${line}\n`)
            .join('')
        : s.api_url
          ? `No running emulator serves ${s.api_url}.\n`
          : `No emulator is running for the data dir ${s.data_dir}.\n`,
    );
    // Where it was looked for: the address in use keeps its port, a named data dir its folder.
    if (!status.running)
      this.note(
        `Start one: \`svc emulator start${portArg(status.api_url)}${dataDirArg(flags['data-dir'])}\``,
      );
    // Said (and printed, --json too) first: the answer is the status, the exit code lets a script branch on it.
    if (!status.running) process.exitCode = ExitCode.notRunning;
  }
}
