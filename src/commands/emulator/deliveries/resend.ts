import {Args, Flags} from '@oclif/core';
import {dataDirFlag} from '../../../lib/flags.js';
import {BaseCommand} from '../../../lib/base-command.js';
import {usageError} from '../../../lib/errors.js';
import {resendDelivery, resendFailed} from '../../../services/emulator/deliveries/resend.js';
import {renderDeliveryDetail} from '../../../ui/delivery-detail.js';
import {renderResentFailed} from '../../../ui/resend.js';
import {terminalView} from '../../../ui/views.js';

export default class EmulatorDeliveriesResend extends BaseCommand {
  static override summary = 'Send a delivery again now: a new, freshly signed attempt with the same body';
  static override description =
    'The resend is marked manual and counts as an attempt; the delivery’s status and retry schedule stay as they were.\n\n' +
    'With --failed, every failed delivery of the emulator’s default org is resent, oldest first (only those to ' +
    'one endpoint with --webhook, only those created within a duration of the emulator’s clock with --since); ' +
    '--json prints {"resent": N, "deliveries": ["dlv_…"]}.';
  static override examples = [
    '<%= config.bin %> emulator deliveries resend dlv_0123456789abcdefghijklmn',
    '<%= config.bin %> emulator deliveries resend --failed --since 2h',
    '<%= config.bin %> emulator deliveries resend --failed --webhook we_0123456789abcdefghijklmn --json',
  ];
  static override args = {
    delivery_id: Args.string({description: 'delivery id (dlv_…); not with --failed'}),
  };
  static override flags = {
    failed: Flags.boolean({description: 'resend every failed delivery that matches'}),
    webhook: Flags.string({
      description: 'with --failed: only deliveries to this endpoint',
      helpValue: 'WE_ID',
      dependsOn: ['failed'],
    }),
    since: Flags.string({
      description: 'with --failed: only deliveries created within this duration (90m, 1d)',
      helpValue: 'DURATION',
      dependsOn: ['failed'],
    }),
    'data-dir': dataDirFlag(),
  };

  async run() {
    const {args, flags} = await this.parse(EmulatorDeliveriesResend);
    if (flags.failed) {
      if (args.delivery_id) throw usageError('give a delivery id or --failed, not both');
      const result = await resendFailed({
        webhookId: flags.webhook,
        since: flags.since,
        dataDir: flags['data-dir'],
        env: process.env,
      });
      await this.show({resent: result.resent, deliveries: result.deliveries}, () =>
        renderResentFailed(result),
      );
      return;
    }
    if (!args.delivery_id) {
      throw usageError('which delivery? Give its id (dlv_…), or --failed to resend every failed one', [
        'Find the ids with `svc webhooks deliveries WEBHOOK_ID`',
      ]);
    }
    const {detail, apiUrl, nowMs} = await resendDelivery({
      deliveryId: args.delivery_id,
      dataDir: flags['data-dir'],
      env: process.env,
    });
    await this.show(
      detail,
      async (d, view) =>
        `Resent ${d.delivery.id} on the emulator at ${apiUrl}:\n\n` +
        renderDeliveryDetail(d, await terminalView(view, nowMs), apiUrl),
    );
  }
}
