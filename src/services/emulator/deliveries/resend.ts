// `svc emulator deliveries resend`: a new attempt of a delivery now, outside its retry schedule; with --failed,
// one for every failed delivery that matches, in one call to the emulator.
import {type DeliveryDetail, type ResendFailedResult, EmulatorControlError} from '@svc/client';
import {usageError} from '../../../lib/errors.js';
import {checkWebhookId} from '../../webhooks/deliveries.js';
import {checkDeliveryId} from '../../webhooks/deliveries/show.js';
import {type ConnectOptions, withControl} from '../connect.js';

/** The delivery after the resend, with the emulator it was made in and that emulator's clock. */
export interface ResentAt {
  detail: DeliveryDetail;
  apiUrl: string;
  nowMs: number;
}

export function resendDelivery(options: ConnectOptions & {deliveryId: string}): Promise<ResentAt> {
  checkDeliveryId(options.deliveryId);
  return withControl(options, async (control, info) => {
    const detail = await control.resendDelivery(options.deliveryId);
    const clock = await control.clock();
    return {detail, apiUrl: info.api_url, nowMs: Date.parse(clock.now)};
  });
}

export interface ResendFailedOptions extends ConnectOptions {
  webhookId?: string;
  /** A duration (`90m`, `1d`): only deliveries created within it, on the emulator's clock. */
  since?: string;
}

export function resendFailed(options: ResendFailedOptions): Promise<ResendFailedResult & {api_url: string}> {
  if (options.webhookId !== undefined) checkWebhookId(options.webhookId);
  return withControl(options, async (control, info) => {
    try {
      const result = await control.resendFailed({webhook_id: options.webhookId, since: options.since});
      return {...result, api_url: info.api_url};
    } catch (err) {
      // The emulator checks the duration (one parser of durations); a bad one is the caller's usage mistake.
      const since =
        err instanceof EmulatorControlError ? err.problems.find((p) => p.field === 'since') : undefined;
      if (since) throw usageError(`--since ${since.message}`);
      throw err;
    }
  });
}
