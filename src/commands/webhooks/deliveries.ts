import {Args, Flags} from '@oclif/core';
import {openSession} from '../../auth/session.js';
import {
  DELIVERY_STATUSES,
  type DeliveryStatus,
  EVENT_TYPES,
  type EventType,
  jsonText,
  MAX_DELIVERIES_LISTED,
} from '../../definitions.js';
import {BaseCommand} from '../../lib/base-command.js';
import {apiUrlFlag} from '../../lib/flags.js';
import type {Delivery} from '../../schemas/index.js';
import {
  checkWebhookId,
  deliveryChanges,
  listDeliveries,
  watchDeliveries,
} from '../../services/webhooks/deliveries.js';
import {renderDeliveries, renderWatchChange, renderWatchStart, terminalView} from '../../ui/views.js';

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
    const {client} = await openSession({env: process.env, flags: {apiUrl: flags['api-url']}});
    if (!flags.watch) {
      const {deliveries, total} = await listDeliveries({
        client,
        webhookId: args.webhook_id,
        status,
        eventType,
      });
      if (!this.jsonEnabled()) {
        const view = await terminalView(process.stdout, process.env, client.serverNowMs());
        process.stdout.write(renderDeliveries(deliveries, view, {status, eventType, unfiltered: total}));
      }
      return {data: deliveries};
    }
    const view = await terminalView(process.stdout, process.env, client.serverNowMs());
    const stop = new AbortController();
    const onSigint = () => stop.abort();
    process.once('SIGINT', onSigint);
    const json = this.jsonEnabled();
    let seen: Map<string, Delivery> | undefined;
    let failing = false;
    try {
      await watchDeliveries({
        client,
        webhookId: args.webhook_id,
        status,
        eventType,
        intervalMs: WATCH_INTERVAL_MS,
        signal: stop.signal,
        onUpdate: ({deliveries, total, error}) => {
          const now = {...view, nowMs: client.serverNowMs()};
          if (error) {
            // Said once per spell of trouble, on stderr: the stream on stdout stays data only.
            if (!failing)
              process.stderr.write(
                `poll failed: ${error.message}; retrying every ${WATCH_INTERVAL_MS / 1000} s\n`,
              );
            failing = true;
            return;
          }
          if (failing) process.stderr.write('polling again\n');
          failing = false;
          if (!seen && !json) {
            process.stdout.write(
              renderWatchStart(deliveries, now, `${args.webhook_id} · every ${WATCH_INTERVAL_MS / 1000} s`, {
                status,
                eventType,
                unfiltered: total,
              }),
            );
          } else {
            for (const change of deliveryChanges(seen ?? new Map(), deliveries)) {
              process.stdout.write(json ? `${jsonText(change)}\n` : renderWatchChange(change, now));
            }
          }
          seen = new Map(deliveries.map((d) => [d.id, d]));
        },
      });
    } finally {
      process.removeListener('SIGINT', onSigint);
    }
    return undefined;
  }
}
