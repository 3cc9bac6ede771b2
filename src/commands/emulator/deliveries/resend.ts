import {Args} from '@oclif/core';
import {dataDirFlag} from '../../../lib/flags.js';
import {BaseCommand} from '../../../lib/base-command.js';
import {resendDelivery} from '../../../services/emulator/deliveries/resend.js';
import {renderDeliveryDetail} from '../../../ui/delivery-detail.js';
import {terminalView} from '../../../ui/views.js';

export default class EmulatorDeliveriesResend extends BaseCommand {
  static override summary = 'Send a delivery again now: a new, freshly signed attempt with the same body';
  static override description =
    'The resend is marked manual and counts as an attempt; the delivery’s status and retry schedule stay as they were.';
  static override examples = ['<%= config.bin %> emulator deliveries resend dlv_0123456789abcdefghijklmn'];
  static override args = {
    delivery_id: Args.string({description: 'delivery id (dlv_…)', required: true}),
  };
  static override flags = {
    'data-dir': dataDirFlag(),
  };

  async run() {
    const {args, flags} = await this.parse(EmulatorDeliveriesResend);
    const {detail, apiUrl, nowMs} = await resendDelivery({
      deliveryId: args.delivery_id,
      dataDir: flags['data-dir'],
      env: process.env,
    });
    if (!this.jsonEnabled())
      process.stdout.write(
        renderDeliveryDetail(detail, await terminalView(process.stdout, process.env, nowMs), apiUrl),
      );
    return detail;
  }
}
