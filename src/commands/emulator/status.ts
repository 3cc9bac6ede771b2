import {BaseCommand} from '../../lib/base-command.js';
import {dataDirFlag} from '../../lib/flags.js';
import {emulatorStatus} from '../../services/emulator/status.js';
import {dataDirArg} from '../../lib/hints.js';
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
    if (!this.jsonEnabled() && !status.running) {
      this.log(
        status.api_url
          ? `No running emulator serves ${status.api_url}.`
          : `No emulator is running for the data dir ${status.data_dir}.`,
      );
      this.logToStderr(`Start one: \`svc emulator start${dataDirArg(flags['data-dir'])}\``);
    } else if (!this.jsonEnabled() && status.running) {
      this.log(`Emulator running (pid ${status.pid})`);
      this.log(`  API:          ${status.api_url}`);
      this.log(`  Account page: ${status.account_url}`);
      this.log(`  Data dir:     ${status.data_dir}`);
      this.log(`  Org:          ${status.org_id}`);
      this.log(`  Clock:        ${status.clock.mode}, ${status.clock.now}`);
    }
    // Said (and printed, --json too) first: the answer is the status, the exit code lets a script branch on it.
    if (!status.running) process.exitCode = ExitCode.notRunning;
    return status;
  }
}
