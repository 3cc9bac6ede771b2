import {BaseCommand} from '../../lib/base-command.js';
import {dataDirFlag} from '../../lib/flags.js';
import {stopEmulator} from '../../services/emulator/stop.js';

export default class EmulatorStop extends BaseCommand {
  static override summary = 'Stop the running emulator and wait until it has shut down cleanly';
  static override examples = ['<%= config.bin %> emulator stop'];
  static override flags = {
    'data-dir': dataDirFlag(),
  };

  async run() {
    const {flags} = await this.parse(EmulatorStop);
    const result = await stopEmulator({dataDir: flags['data-dir'], env: process.env});
    // Nothing stopped is a note for a person; stdout stays empty (the record still is the --json answer).
    if (!result.stopped)
      this.note(
        `Nothing to stop: ${result.api_url ? `no running emulator serves ${result.api_url}` : `no emulator is running for the data dir ${result.data_dir}`}.`,
      );
    await this.show(result, (r) =>
      r.stopped ? `Stopped the emulator at ${r.api_url} (pid ${r.pid}).\n` : '',
    );
  }
}
