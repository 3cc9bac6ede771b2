import {Args, Flags} from '@oclif/core';
import {describeChaos} from '../../../schemas/chaos.js';
import {BaseCommand} from '../../../lib/base-command.js';
import {dataDirFlag} from '../../../lib/flags.js';
import {webhookChaos} from '../../../services/emulator/webhooks/chaos.js';

export default class EmulatorWebhooksChaos extends BaseCommand {
  static override summary =
    "Show or set an endpoint's delivery chaos: duplicates, reordering and delays from a seed";
  static override description =
    'Some events are delivered twice (the same event id), some held back so later ones overtake them, and ' +
    'first attempts delayed, each chosen from the seed so a run can be replayed. Attempts made by chaos are ' +
    'marked `chaos` in the delivery. Setting it starts the endpoint’s sequence again from the seed.';
  static override examples = [
    '<%= config.bin %> emulator webhooks chaos we_… duplicate=0.2,reorder=0.3,delay=0-5s,seed=42',
    '<%= config.bin %> emulator webhooks chaos we_…',
    '<%= config.bin %> emulator webhooks chaos we_… --off',
  ];
  static override args = {
    id: Args.string({description: 'id of the endpoint (we_…)', required: true}),
    settings: Args.string({description: 'duplicate=P,reorder=P,delay=MIN-MAX,seed=N (each part optional)'}),
  };
  static override flags = {
    off: Flags.boolean({
      description: "deliver this endpoint's events plainly, whatever the emulator's --chaos",
    }),
    'data-dir': dataDirFlag(),
  };

  async run() {
    const {args, flags} = await this.parse(EmulatorWebhooksChaos);
    const {value: result, apiUrl} = await webhookChaos({
      id: args.id,
      spec: args.settings,
      off: flags.off,
      dataDir: flags['data-dir'],
      env: process.env,
    });
    await this.show(result, (r) => {
      const from = r.source === 'emulator' ? ' (from the emulator’s --chaos)' : '';
      const at = ` on the emulator at ${apiUrl}`;
      return r.chaos
        ? `${r.endpoint_id}${at}: ${describeChaos(r.chaos)}${from}\n`
        : `${r.endpoint_id}${at}: no chaos; deliveries are made plainly\n`;
    });
  }
}
