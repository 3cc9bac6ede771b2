import {Flags} from '@oclif/core';
import {BaseCommand} from '../../lib/base-command.js';
import {dataDirFlag} from '../../lib/flags.js';
import {processIo} from '../../lib/output.js';
import {emulatorExec} from '../../services/emulator/exec.js';

export default class EmulatorExec extends BaseCommand {
  static override summary =
    'Start a throwaway emulator, run a command against it, stop, and exit with its code';
  static override description =
    'The command sees SVC_API_URL, SVC_API_KEY (a fresh key) and SVC_EMULATOR_DATA_DIR. The emulator listens on a free port and keeps its data in memory unless --data-dir is given.';
  static override strict = false;
  static override examples = [
    '<%= config.bin %> emulator exec -- npm test',
    '<%= config.bin %> emulator exec -- svc org --json',
  ];
  static override flags = {
    'data-dir': dataDirFlag({description: 'keep the data in this dir instead of in memory'}),
    'database-url': Flags.string({
      description: 'use a real PostgreSQL (or set SVC_EMULATOR_DATABASE_URL)',
      helpValue: 'postgres://…',
    }),
    clock: Flags.string({
      description: 'manual: time moves only with `svc emulator clock`',
      options: ['real', 'manual'],
      default: 'real',
    }),
    'allow-local-endpoints': Flags.boolean({
      description: 'let webhook endpoints use http:// and loopback or private hosts',
    }),
  };

  async run() {
    const {flags, argv} = await this.parse(EmulatorExec);
    const {exitCode} = await emulatorExec({
      command: argv as string[],
      dataDir: flags['data-dir'],
      databaseUrl: flags['database-url'],
      clock: flags.clock as 'real' | 'manual',
      allowLocalEndpoints: flags['allow-local-endpoints'],
      env: process.env,
      io: processIo(),
    });
    process.exitCode = exitCode;
  }
}
