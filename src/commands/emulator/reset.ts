import {BaseCommand} from '../../lib/base-command.js';
import {databaseUrlFlag, dataDirFlag} from '../../lib/flags.js';
import {resetState} from '../../services/emulator/state/reset.js';

export default class EmulatorReset extends BaseCommand {
  static override summary =
    "Empty the emulator's state: no keys, endpoints, sandboxes or events; one empty org";
  static override description =
    'Works on a running emulator or on the data dir (or --database-url) of a stopped one. The clock stays where it is. Export first (`svc emulator export`) to keep what is there.';
  static override examples = ['<%= config.bin %> emulator reset'];
  static override flags = {
    'data-dir': dataDirFlag(),
    'database-url': databaseUrlFlag(),
  };

  async run() {
    const {flags} = await this.parse(EmulatorReset);
    const result = await resetState({
      dataDir: flags['data-dir'],
      databaseUrl: flags['database-url'],
      env: process.env,
      log: (line) => this.note(line),
    });
    await this.show(result, (r) => `Emptied the emulator's state; default org ${r.default_org_id}.\n`);
  }
}
