// `svc emulator webhooks chaos`: shows, sets or turns off one endpoint's delivery chaos in the running emulator.
import type {EndpointChaos} from '@svc/client';
import {idShapeText, isId} from '../../../definitions.js';
import {usageError} from '../../../lib/errors.js';
import {type At, type ConnectOptions, withControlAt} from '../connect.js';
import {chaosFlag} from '../start.js';

export interface WebhookChaosOptions extends ConnectOptions {
  id: string;
  /** `duplicate=0.2,reorder=0.3,delay=0-5s,seed=42`; absent: show what is in force. */
  spec?: string;
  off?: boolean;
}

export function webhookChaos(options: WebhookChaosOptions): Promise<At<EndpointChaos>> {
  if (!isId('webhookEndpoint', options.id)) {
    throw usageError(
      `${JSON.stringify(options.id)} is not a webhook endpoint id (${idShapeText('webhookEndpoint')})`,
    );
  }
  if (options.off && options.spec !== undefined) throw usageError('pass either settings or --off, not both');
  const settings = options.spec === undefined ? undefined : chaosFlag(options.spec);
  return withControlAt(options, (control) => {
    if (options.off) return control.setChaos(options.id, null);
    if (settings) return control.setChaos(options.id, settings);
    return control.getChaos(options.id);
  });
}
