import {Flags} from '@oclif/core';
import {AUTH_FAILURE_LIMIT, EMULATOR_DEFAULT_PORT, VAULT_KEY_BYTES} from '../../definitions.js';
import {BaseCommand} from '../../lib/base-command.js';
import {
  allowLocalEndpointsFlag,
  dataDirFlag,
  databaseUrlFlag,
  emulatorChaosFlag,
  emulatorClockFlag,
  signatureClockFlag,
} from '../../lib/flags.js';
import {emulatorStart} from '../../services/emulator/start.js';
import {renderReady} from '../../ui/emulator.js';
import {renderLoad} from '../../ui/state.js';

export default class EmulatorStart extends BaseCommand {
  static override summary = 'Run the local svc emulator in the foreground';
  static override description =
    `Serves the svc API (/v1) and the emulator's control surface on one port until Ctrl+C (SIGINT) or SIGTERM, then finishes in-flight requests and closes the database. State lives in the data dir and survives restarts.

Repeated failed authentications from one address get 429 rate_limited after ${AUTH_FAILURE_LIMIT.maxFailures} failures within ${AUTH_FAILURE_LIMIT.windowMs / 1000} seconds (by the emulator clock), with Retry-After. An API fuzzer sends thousands of failing requests: run it against an emulator started with --no-rate-limit.
Environment: SVC_EMULATOR_DATA_DIR (data dir), SVC_EMULATOR_DATABASE_URL (PostgreSQL URL), SVC_EMULATOR_VAULT_KEY (base64 of ${VAULT_KEY_BYTES} bytes; default: generated into <data-dir>/vault.key), SVC_EMULATOR_RATE_LIMIT=off (as --no-rate-limit; \`svc emulator exec\` reads it too).`;
  static override examples = [
    '<%= config.bin %> emulator start',
    '<%= config.bin %> emulator start --port 0 --in-memory --json',
    '<%= config.bin %> emulator start --clock manual --data-dir ./.svc-emulator',
    '<%= config.bin %> emulator start --in-memory --seed fixtures/seed.json',
    '<%= config.bin %> emulator start --in-memory --import state.json --export-on-exit state.json',
  ];
  static override flags = {
    port: Flags.integer({
      description: 'port to listen on (0 picks a free one)',
      default: EMULATOR_DEFAULT_PORT,
      min: 0,
      max: 65535,
    }),
    host: Flags.string({description: 'address to listen on', default: '127.0.0.1'}),
    'allowed-host': Flags.string({
      description:
        'a further name requests may be addressed to (a container or tunnel name); repeat for more. Requests under any other name than localhost, 127.0.0.1, [::1] and --host are refused',
      helpValue: 'NAME',
      multiple: true,
    }),
    'data-dir': dataDirFlag({description: 'where the emulator keeps its data (default: the user data dir)'}),
    'in-memory': Flags.boolean({description: 'keep nothing after stopping'}),
    'database-url': databaseUrlFlag(),
    clock: emulatorClockFlag(),
    'signature-clock': signatureClockFlag(),
    'no-vault-key': Flags.boolean({
      description: 'run like a deployment without a vault key (deliveries answer 503)',
    }),
    'allow-local-endpoints': allowLocalEndpointsFlag,
    'no-rate-limit': Flags.boolean({
      description:
        'never answer 429 for failed authentications, for API fuzzers only (or set SVC_EMULATOR_RATE_LIMIT=off); it says so at start and in status',
    }),
    chaos: emulatorChaosFlag(),
    demo: Flags.boolean({
      description:
        "name the default org Demo org and print its demo API key: the data dir's key from earlier starts while it works, else a new one (the older demo keys revoked)",
    }),
    import: Flags.string({
      description: 'load this snapshot (or seed) file at start, in place of the state in the data dir',
      helpValue: 'FILE',
    }),
    'export-on-exit': Flags.string({
      description: 'on Ctrl+C or SIGTERM, save the whole state to this file (owner-only) before stopping',
      helpValue: 'FILE',
    }),
    seed: Flags.string({
      description:
        'load this seed file (JSON) at start, without firing events; its first org becomes the default',
      helpValue: 'FILE',
    }),
    'secrets-out': Flags.string({
      description:
        'write the secrets the seed left to the emulator (keys and signing secrets it made) to this file, owner-only JSON; they are printed only to a terminal',
      helpValue: 'FILE',
    }),
  };

  async run() {
    const {flags} = await this.parse(EmulatorStart);
    // A first start on a new data dir takes seconds (its database is made): a person sees at once that it began.
    this.note('Starting the emulator…');
    const untilStopped = new Promise<void>((resolve) => {
      process.once('SIGINT', () => resolve());
      process.once('SIGTERM', () => resolve());
    });
    await emulatorStart({
      display: {ready: renderReady, loaded: renderLoad},
      port: flags.port,
      host: flags.host,
      allowedHosts: flags['allowed-host'],
      dataDir: flags['data-dir'],
      inMemory: flags['in-memory'],
      databaseUrl: flags['database-url'],
      clock: flags.clock,
      signatureClock: flags['signature-clock'],
      noVaultKey: flags['no-vault-key'],
      allowLocalEndpoints: flags['allow-local-endpoints'],
      // Unset, SVC_EMULATOR_RATE_LIMIT decides.
      rateLimit: flags['no-rate-limit'] ? false : undefined,
      chaos: flags.chaos,
      demo: flags.demo,
      seed: flags.seed,
      secretsOut: flags['secrets-out'],
      importFile: flags.import,
      exportOnExit: flags['export-on-exit'],
      json: this.jsonEnabled(),
      env: process.env,
      // The ready message is this run's answer (with --json its JSON line); the emulator's own lines go as they are.
      print: (text) => this.say(text),
      log: (line) => this.note(line, {evenWithJson: true, asIs: true}),
      terminal: this.streams().stdout.isTTY === true,
      untilStopped,
    });
  }
}
