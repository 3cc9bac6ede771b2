// Control routes for one delivery: its detail with every attempt, and a resend. Admin token only, like all of /_emulator.
import {ERROR_STATUS} from '../../src/definitions.js';
import type {EmulatorApp, EmulatorContext} from '../context.js';
import {HttpError} from '../http-error.js';
import {getDeliveryDetail} from '../ops/delivery-detail.js';
import {OperationError} from '../ops/errors.js';
import {type Attempter, resendDelivery} from '../ops/resend.js';

export function registerDeliveryControlRoutes(
  app: EmulatorApp,
  ctx: EmulatorContext,
  attempter: () => Attempter,
): void {
  app.get('/_emulator/deliveries/:id', async (c) =>
    c.json(await mapped(() => getDeliveryDetail(ctx, {deliveryId: c.req.param('id')}))),
  );
  app.post('/_emulator/deliveries/:id/resend', async (c) =>
    c.json(await mapped(() => resendDelivery(ctx, {deliveryId: c.req.param('id'), attempter: attempter()}))),
  );
}

async function mapped<T>(op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (err) {
    if (err instanceof OperationError) throw new HttpError(ERROR_STATUS[err.code], err.code, err.message);
    throw err;
  }
}
