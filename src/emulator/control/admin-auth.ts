// The control surface accepts only the emulator's admin token (from emulator.json), never an API key.
import {createMiddleware} from 'hono/factory';
import {bearerToken} from '../auth/bearer.js';
import {safeEqual} from '../hash.js';
import {reserveOrRefuse} from '../auth/rate-limiter.js';
import type {AppEnv, EmulatorContext} from '../context.js';
import {HttpError} from '../http-error.js';
import {clientAddress} from '../net/client-address.js';

export function adminAuth(ctx: EmulatorContext) {
  return createMiddleware<AppEnv>(async (c, next) => {
    // A budget of its own: failed API keys on /v1 never lock the control surface out.
    const reservation = await reserveOrRefuse(ctx.controlLimiter, clientAddress(c));
    const token = bearerToken(c.req.header('authorization'), 500);
    if (!token || !safeEqual(token, ctx.adminToken)) {
      reservation.failed();
      c.set('refusal', {
        reason: token ? 'wrong_admin_token' : 'missing',
        detail: 'the control surface takes only the admin token of emulator.json',
      });
      throw new HttpError(
        401,
        'unauthorized',
        'the emulator control surface needs its admin token (see emulator.json)',
      );
    }
    reservation.succeeded();
    await next();
  });
}
