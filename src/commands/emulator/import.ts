import {Args, Flags} from '@oclif/core';
import {BaseCommand} from '../../lib/base-command.js';
import {allowLocalEndpointsFlag, databaseUrlFlag, dataDirFlag} from '../../lib/flags.js';
import {importState} from '../../services/emulator/state/import.js';
import {renderLoad} from '../../ui/state.js';

export default class EmulatorImport extends BaseCommand {
  static override summary =
    "Load a snapshot or seed file into the emulator's state, in place of it or (--merge) beside it";
  static override description =
    'Works on a running emulator (found through --data-dir or SVC_EMULATOR_DATA_DIR) or on the data dir (or --database-url) of a stopped one. No event is fired and no delivery made. Every problem in the file is reported with its path, and then nothing is loaded.';
  static override examples = [
    '<%= config.bin %> emulator import fixtures/seed.json',
    '<%= config.bin %> emulator import extra-org.json --merge',
  ];
  static override args = {
    file: Args.string({
      description: 'snapshot (from `svc emulator export`) or seed file (JSON, or YAML for a seed)',
      required: true,
    }),
  };
  static override flags = {
    merge: Flags.boolean({description: 'add to the state instead of replacing it'}),
    'data-dir': dataDirFlag(),
    'database-url': databaseUrlFlag(),
    'allow-local-endpoints': allowLocalEndpointsFlag,
  };

  async run() {
    const {args, flags} = await this.parse(EmulatorImport);
    const result = await importState({
      file: args.file,
      merge: flags.merge,
      dataDir: flags['data-dir'],
      databaseUrl: flags['database-url'],
      allowLocalEndpoints: flags['allow-local-endpoints'],
      env: process.env,
      log: (line) => this.note(line),
    });
    await this.show(result, (r) => renderLoad(args.file, r));
  }
}
