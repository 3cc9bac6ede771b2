// The control surface accepts only the emulator's admin token (from emulator.json), never an API key.
import {createMiddleware} from 'hono/factory';
import {bearerToken, rateLimited} from '../auth/bearer.js';
import {safeEqual} from '../auth/hash.js';
import type {AppEnv, EmulatorContext} from '../context.js';
import {HttpError} from '../http-error.js';
import {clientAddress} from '../net/client-address.js';

export function adminAuth(ctx: EmulatorContext) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const address = clientAddress(c);
    const wait = ctx.limiter.retryAfterSeconds(address);
    if (wait > 0) throw rateLimited(wait);
    const token = bearerToken(c.req.header('authorization'), 500);
    if (!token || !safeEqual(token, ctx.adminToken)) {
      ctx.limiter.recordFailure(address);
      throw new HttpError(
        401,
        'unauthorized',
        'the emulator control surface needs its admin token (see emulator.json)',
      );
    }
    await next();
  });
}
