import {Args} from '@oclif/core';
import {apiUrlFlag, dataDirFlag} from '../../../lib/flags.js';
import {BaseCommand} from '../../../lib/base-command.js';
import {checkDeliveryId, showDelivery} from '../../../services/webhooks/deliveries/show.js';
import {renderDeliveryDetail} from '../../../ui/delivery-detail.js';
import {terminalView} from '../../../ui/views.js';
import {readingFrom} from '../../../services/reading-from.js';

export default class WebhooksDeliveriesShow extends BaseCommand {
  static override summary = 'Show one delivery: its attempts (with what came back) and its event';
  static override description =
    'Attempt detail and the event body come from the emulator, when the API address is a running emulator’s. ' +
    'Against the service, which lists deliveries only, it shows the delivery’s list record.';
  static override examples = [
    '<%= config.bin %> webhooks deliveries show dlv_0123456789abcdefghijklmn --json',
  ];
  static override args = {
    delivery_id: Args.string({
      description: 'delivery id (dlv_…), from `svc webhooks deliveries`',
      required: true,
    }),
  };
  static override flags = {
    'api-url': apiUrlFlag(),
    'data-dir': dataDirFlag(),
  };

  async run() {
    const {args, flags} = await this.parse(WebhooksDeliveriesShow);
    // A malformed id is said before anything is read, whatever the credentials.
    checkDeliveryId(args.delivery_id);
    const {client} = await this.session();
    await this.noteWhenShown(() =>
      readingFrom({
        env: process.env,
        apiUrl: client.apiUrl,
        apiUrlFlag: flags['api-url'],
        dataDir: flags['data-dir'],
      }),
    );
    const {shown, apiUrl, nowMs} = await showDelivery({
      client,
      deliveryId: args.delivery_id,
      env: process.env,
      dataDir: flags['data-dir'],
    });
    await this.show(shown, async (s, view) =>
      renderDeliveryDetail(s, await terminalView(view, nowMs), apiUrl),
    );
  }
}
