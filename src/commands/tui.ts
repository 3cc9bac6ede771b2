import {setTimeout as delay} from 'node:timers/promises';
import {apiUrlFlag, dataDirFlag} from '../lib/flags.js';
import {BaseCommand} from '../lib/base-command.js';
import {colorEnabled} from '../lib/output.js';
import {openTuiSource, prefetchEndpoints, requireTerminal} from '../services/tui.js';
import {enterScreen, leaveScreen, paintEndpoints} from '../ui/tui/screen.js';

/** How long the first endpoints are waited for before Ink loads anyway. */
const FIRST_DATA_WAIT_MS = 150;

export default class Tui extends BaseCommand {
  static override summary = 'Browse webhook endpoints and deliveries full-screen, live';
  static override description =
    'Endpoints, then an endpoint’s deliveries, then one delivery. Against the emulator it also shows each ' +
    'attempt’s answer and the event body, and resends with r. Needs a terminal; scripts use the --json commands.';
  static override examples = [
    '<%= config.bin %> tui',
    'SVC_API_URL=http://127.0.0.1:4010 <%= config.bin %> tui',
  ];
  static override enableJsonFlag = false;
  static override flags = {
    'api-url': apiUrlFlag(),
    'data-dir': dataDirFlag({
      description:
        'data dir of the emulator to use for attempts and resends (default: SVC_EMULATOR_DATA_DIR)',
    }),
  };

  async run() {
    const {flags} = await this.parse(Tui);
    // A full-screen browser: the terminal's own streams, held for the whole run.
    const {stdin, stdout} = this.streams();
    requireTerminal(stdin, stdout);
    const opened = await openTuiSource({
      env: process.env,
      apiUrl: flags['api-url'],
      dataDir: flags['data-dir'],
      // Quick to say the API is not there: the browser shows it and keeps trying.
      client: async () => (await this.session({client: {retries: 0, timeoutMs: 5_000}})).client,
    });
    // The endpoints are asked for at once, and the frame is on screen before they arrive.
    const first = opened.listEndpoints();
    const source = prefetchEndpoints(opened, first);
    enterScreen(stdout, source);
    // Keys typed from here on arrive as keys (Enter as Enter), not as a line the terminal edits until Ink reads.
    stdin.setRawMode?.(true);
    // A local API answers in a few milliseconds, far sooner than Ink loads: the endpoints are painted as they
    // arrive, then Ink takes over. A slow API is not waited for long: Ink loads and shows them when they come.
    const early = await Promise.race([first.catch(() => undefined), delay(FIRST_DATA_WAIT_MS)]);
    if (Array.isArray(early)) paintEndpoints(stdout, early, {health: source.endpointHealth !== undefined});
    const color = colorEnabled(stdout, process.env);
    // Ink's colours follow the same rule as the rest of svc (NO_COLOR, FORCE_COLOR, a terminal), not their
    // own guess, which turns colour off whenever CI is set; chalk reads this as it loads.
    process.env.FORCE_COLOR = color ? '1' : '0';
    try {
      const {runTui} = await import('../ui/tui/index.js');
      await runTui({source, color, stdin, stdout});
    } finally {
      stdin.setRawMode?.(false);
      leaveScreen(stdout);
    }
  }
}
