import {Args, Flags} from '@oclif/core';
import {openSession} from '../../auth/session.js';
import {DELIVERY_STATUSES, type DeliveryStatus} from '../../definitions.js';
import {BaseCommand} from '../../lib/base-command.js';
import {apiUrlFlag} from '../../lib/flags.js';
import {usageError} from '../../lib/errors.js';
import {checkWebhookId, listDeliveries, watchDeliveries} from '../../services/webhooks/deliveries.js';
import {renderDeliveries, renderWatchFrame, terminalView} from '../../ui/views.js';

const WATCH_INTERVAL_MS = 3000;

export default class WebhooksDeliveries extends BaseCommand {
  static override summary = 'Show the 100 most recent deliveries to a webhook endpoint, newest first';
  static override examples = [
    '<%= config.bin %> webhooks deliveries we_0123456789abcdefghijklmn',
    '<%= config.bin %> webhooks deliveries we_0123456789abcdefghijklmn --status failed --watch',
  ];
  static override args = {
    webhook_id: Args.string({description: 'endpoint id (we_…), from `svc webhooks list`', required: true}),
  };
  static override flags = {
    status: Flags.string({description: 'only deliveries with this status', options: [...DELIVERY_STATUSES]}),
    watch: Flags.boolean({description: 'poll every few seconds and redraw until Ctrl-C'}),
    'api-url': apiUrlFlag(),
  };

  async run() {
    const {args, flags} = await this.parse(WebhooksDeliveries);
    const status = flags.status as DeliveryStatus | undefined;
    if (flags.watch && this.jsonEnabled())
      throw usageError('--watch redraws a table for people; poll without --watch for JSON');
    checkWebhookId(args.webhook_id);
    const {client} = await openSession({env: process.env, flags: {apiUrl: flags['api-url']}});
    if (!flags.watch) {
      const deliveries = await listDeliveries({client, webhookId: args.webhook_id, status});
      if (!this.jsonEnabled())
        process.stdout.write(
          renderDeliveries(deliveries, terminalView(process.stdout, process.env, client.serverNowMs())),
        );
      return {data: deliveries};
    }
    const stop = new AbortController();
    const onSigint = () => stop.abort();
    process.once('SIGINT', onSigint);
    try {
      await watchDeliveries({
        client,
        webhookId: args.webhook_id,
        status,
        intervalMs: WATCH_INTERVAL_MS,
        signal: stop.signal,
        onUpdate: ({deliveries, error}) => {
          const frame = renderWatchFrame(
            deliveries,
            terminalView(process.stdout, process.env, client.serverNowMs()),
            {
              title: `${args.webhook_id} · every ${WATCH_INTERVAL_MS / 1000} s`,
              clear: Boolean(process.stdout.isTTY),
              error: error?.message,
            },
          );
          process.stdout.write(frame);
        },
      });
    } finally {
      process.removeListener('SIGINT', onSigint);
    }
    return undefined;
  }
}
