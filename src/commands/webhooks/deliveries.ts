import {Args, Flags} from '@oclif/core';
import {
  DELIVERY_STATUSES,
  type DeliveryStatus,
  EVENT_TYPES,
  type EventType,
  MAX_DELIVERIES_LISTED,
} from '../../definitions.js';
import {BaseCommand} from '../../lib/base-command.js';
import {apiUrlFlag} from '../../lib/flags.js';
import {checkWebhookId, listDeliveries, watchDeliveries} from '../../services/webhooks/deliveries.js';
import {renderDeliveries, renderWatchChange, renderWatchStart, terminalView} from '../../ui/views.js';
import {readingFrom} from '../../services/reading-from.js';

const WATCH_INTERVAL_MS = 3000;

export default class WebhooksDeliveries extends BaseCommand {
  static override summary =
    `Show the ${MAX_DELIVERIES_LISTED} most recent deliveries to a webhook endpoint, newest first`;
  static override description =
    `The API takes no filter, so --status and --event-type are applied here, to the ${MAX_DELIVERIES_LISTED} deliveries it returns: ` +
    `a filtered list holds the matching ones among those, not the ${MAX_DELIVERIES_LISTED} most recent matching ones.`;
  static override examples = [
    '<%= config.bin %> webhooks deliveries we_0123456789abcdefghijklmn',
    '<%= config.bin %> webhooks deliveries we_0123456789abcdefghijklmn --status failed --watch',
    '<%= config.bin %> webhooks deliveries we_0123456789abcdefghijklmn --event-type sandbox.error',
  ];
  static override args = {
    webhook_id: Args.string({description: 'endpoint id (we_…), from `svc webhooks list`', required: true}),
  };
  static override flags = {
    status: Flags.string({description: 'only deliveries with this status', options: [...DELIVERY_STATUSES]}),
    'event-type': Flags.string({
      description: 'only deliveries of this event type',
      options: [...EVENT_TYPES],
    }),
    watch: Flags.boolean({
      description:
        'poll every few seconds until Ctrl-C, printing each new or changed delivery (with --json: one JSON line each)',
    }),
    'api-url': apiUrlFlag(),
  };

  async run() {
    const {args, flags} = await this.parse(WebhooksDeliveries);
    const status = flags.status as DeliveryStatus | undefined;
    const eventType = flags['event-type'] as EventType | undefined;
    checkWebhookId(args.webhook_id);
    const {client} = await this.session();
    await this.noteWhenShown(() =>
      readingFrom({env: process.env, apiUrl: client.apiUrl, apiUrlFlag: flags['api-url']}),
    );
    const filter = {status, eventType};
    if (!flags.watch) {
      const {deliveries, total} = await listDeliveries({client, webhookId: args.webhook_id, ...filter});
      await this.show({data: deliveries}, async ({data}, view) =>
        renderDeliveries(data, await terminalView(view, client.serverNowMs()), {
          ...filter,
          unfiltered: total,
        }),
      );
      return;
    }
    const view = await terminalView(this.textView(), client.serverNowMs());
    const every = `every ${WATCH_INTERVAL_MS / 1000} s`;
    const stop = new AbortController();
    const onSigint = () => stop.abort();
    process.once('SIGINT', onSigint);
    try {
      await watchDeliveries({
        client,
        webhookId: args.webhook_id,
        ...filter,
        intervalMs: WATCH_INTERVAL_MS,
        signal: stop.signal,
        onProgress: (progress) => {
          const now = {...view, nowMs: client.serverNowMs()};
          // Trouble is said on stderr, --json too: the stream on stdout stays data only.
          if (progress.kind === 'trouble')
            this.note(`poll failed: ${progress.error.message}; retrying ${every}`, {evenWithJson: true});
          else if (progress.kind === 'recovered') this.note('polling again', {evenWithJson: true});
          // At the start a person sees the table of what is there; --json streams it as `new` lines.
          else if (progress.kind === 'start' && !this.jsonEnabled())
            this.say(
              renderWatchStart(progress.deliveries, now, `${args.webhook_id} · ${every}`, {
                ...filter,
                unfiltered: progress.total,
              }),
            );
          else for (const change of progress.changes) this.showEach(change, (c) => renderWatchChange(c, now));
        },
      });
    } finally {
      process.removeListener('SIGINT', onSigint);
    }
  }
}
