// `svc emulator deliveries resend`: a new attempt of a delivery now, outside its retry schedule.
import type {DeliveryDetail} from '@svc/client';
import {checkDeliveryId} from '../../webhooks/deliveries/show.js';
import {type ConnectOptions, withControl} from '../connect.js';

export function resendDelivery(options: ConnectOptions & {deliveryId: string}): Promise<DeliveryDetail> {
  checkDeliveryId(options.deliveryId);
  return withControl(options, (control) => control.resendDelivery(options.deliveryId));
}
