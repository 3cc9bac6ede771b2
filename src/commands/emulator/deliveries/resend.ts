import {Args, Flags} from '@oclif/core';
import {dataDirFlag} from '../../../lib/flags.js';
import {BaseCommand} from '../../../lib/base-command.js';
import {usageError} from '../../../lib/errors.js';
import {RESEND_FAILED_LIMIT} from '../../../definitions.js';
import {resendDelivery, resendFailed} from '../../../services/emulator/deliveries/resend.js';
import {renderDeliveryDetail} from '../../../ui/delivery-detail.js';
import {renderResendProgress, renderResentFailed, resendOutcomeText} from '../../../ui/resend.js';
import {terminalView} from '../../../ui/views.js';

export default class EmulatorDeliveriesResend extends BaseCommand {
  static override summary = 'Send a delivery again now: a new, freshly signed attempt with the same body';
  static override description =
    'The resend is marked manual and counts as an attempt. Answered 2xx in time, it makes the delivery succeeded ' +
    '(no more attempts follow); otherwise the delivery’s status and retry schedule stay as they were. The output ' +
    'says what came back and where the delivery stands; --json adds it as "resend": {"attempt", "status_code", ' +
    '"error", "status"}.\n\n' +
    'With --failed, the failed deliveries of the emulator’s default org are resent, oldest first (only those to ' +
    'one endpoint with --webhook, only those created within a duration of the emulator’s clock with --since), at ' +
    `most --limit of them (${RESEND_FAILED_LIMIT.default} unless given, at most ${RESEND_FAILED_LIMIT.max}), ` +
    'with progress on stderr. Those a resend recovers are succeeded, so a second run leaves them alone. Ctrl+C ' +
    'stops the run: the emulator starts no further resend (the one under way is still recorded). --json prints ' +
    '{"resent": N, "deliveries": ["dlv_…"], "outcomes": [{"delivery_id", "attempt", "status_code", "error", ' +
    '"status"}], "more": BOOLEAN}, "more" being true when more failed deliveries matched than --limit.';
  static override examples = [
    '<%= config.bin %> emulator deliveries resend dlv_0123456789abcdefghijklmn',
    '<%= config.bin %> emulator deliveries resend --failed --since 2h',
    '<%= config.bin %> emulator deliveries resend --failed --webhook we_0123456789abcdefghijklmn --json',
    '<%= config.bin %> emulator deliveries resend --failed --limit 500',
  ];
  static override args = {
    delivery_id: Args.string({description: 'delivery id (dlv_…); not with --failed'}),
  };
  static override flags = {
    failed: Flags.boolean({description: 'resend the failed deliveries that match, at most --limit of them'}),
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
    limit: Flags.integer({
      description: `with --failed: resend at most this many (default ${RESEND_FAILED_LIMIT.default}, at most ${RESEND_FAILED_LIMIT.max})`,
      helpValue: 'N',
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
        limit: flags.limit,
        dataDir: flags['data-dir'],
        env: process.env,
        onProgress: (outcomes, limit) => this.note(renderResendProgress(outcomes, limit)),
      });
      const {resent, deliveries, outcomes, more} = result;
      await this.show({resent, deliveries, outcomes, more}, () => renderResentFailed(result));
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
        `Resent ${d.delivery.id} on the emulator at ${apiUrl}: ${resendOutcomeText(d.resend)}.\n\n` +
        renderDeliveryDetail(d, await terminalView(view, nowMs), apiUrl),
    );
  }
}
