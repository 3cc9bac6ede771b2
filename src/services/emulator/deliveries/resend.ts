// `svc emulator deliveries resend`: a new attempt of a delivery now, outside its retry schedule.
import type {DeliveryDetail} from '../../../client/emulator-control.js';
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
