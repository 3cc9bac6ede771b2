import {Flags} from '@oclif/core';
import {BaseCommand} from '../../lib/base-command.js';
import {
  allowLocalEndpointsFlag,
  dataDirFlag,
  databaseUrlFlag,
  emulatorChaosFlag,
  emulatorClockFlag,
  signatureClockFlag,
} from '../../lib/flags.js';
import {emulatorExec} from '../../services/emulator/exec.js';

export default class EmulatorExec extends BaseCommand {
  static override summary =
    'Start a throwaway emulator, run a command against it, stop, and exit with its code';
  static override description =
    'The command sees SVC_API_URL, SVC_API_KEY (a fresh key) and SVC_EMULATOR_DATA_DIR. The emulator listens on a free port unless --port is given, and keeps its data in memory unless --data-dir is given. The vitest global setup of @svc/cli/testing uses this emulator instead of starting its own.';
  static override strict = false;
  static override examples = [
    '<%= config.bin %> emulator exec -- npm test',
    '<%= config.bin %> emulator exec -- svc org --json',
    '<%= config.bin %> emulator exec --seed ci/seed.json --export-on-exit state.json -- npm test',
    '<%= config.bin %> emulator exec --port 4010 --clock manual --allow-local-endpoints -- npx vitest run',
  ];
  static override flags = {
    port: Flags.integer({
      description: 'port to listen on (0 picks a free one)',
      default: 0,
      min: 0,
      max: 65535,
    }),
    'data-dir': dataDirFlag({description: 'keep the data in this dir instead of in memory'}),
    'database-url': databaseUrlFlag(),
    clock: emulatorClockFlag(),
    'signature-clock': signatureClockFlag(),
    'allow-local-endpoints': allowLocalEndpointsFlag,
    chaos: emulatorChaosFlag(),
    seed: Flags.string({
      description:
        'load this seed file (JSON, or YAML when it ends in .yaml or .yml) first, without firing events',
      helpValue: 'FILE',
    }),
    'secrets-out': Flags.string({
      description:
        'write the secrets the seed left to the emulator (keys and signing secrets it made) to this file, owner-only JSON; they are printed only to a terminal',
      helpValue: 'FILE',
    }),
    import: Flags.string({description: 'load this snapshot (or seed) file first', helpValue: 'FILE'}),
    'export-on-exit': Flags.string({
      description: 'once the command has ended, save the whole state to this file (owner-only)',
      helpValue: 'FILE',
    }),
  };

  async run() {
    const {flags, argv} = await this.parse(EmulatorExec);
    const {exitCode} = await emulatorExec({
      command: argv as string[],
      port: flags.port,
      dataDir: flags['data-dir'],
      databaseUrl: flags['database-url'],
      clock: flags.clock,
      signatureClock: flags['signature-clock'],
      allowLocalEndpoints: flags['allow-local-endpoints'],
      chaos: flags.chaos,
      seed: flags.seed,
      secretsOut: flags['secrets-out'],
      importFile: flags.import,
      exportOnExit: flags['export-on-exit'],
      env: process.env,
      // The emulator's own lines, as they are, --json or not.
      log: (line) => this.note(line, {evenWithJson: true, asIs: true}),
      terminal: this.streams().stderr.isTTY === true,
    });
    process.exitCode = exitCode;
  }
}
