// The control surface accepts the emulator's admin token (from emulator.json), or a control token the emulator
// issued (reaching one org, or only making orgs: control/token-scope.ts holds it to that), never an API key.
import {createMiddleware} from 'hono/factory';
import {bearerToken} from '../auth/bearer.js';
import {readControlToken} from '../auth/control-token.js';
import {reserveOrRefuse} from '../auth/rate-limiter.js';
import type {AppEnv, EmulatorContext} from '../context.js';
import {safeEqual} from '../hash.js';
import {HttpError} from '../http-error.js';
import {limiterAddress} from '../net/client-address.js';

export function adminAuth(ctx: EmulatorContext) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const token = bearerToken(c.req.header('authorization'), 500);
    // The right token always passes, compared in constant time before the limiter looks: whoever guesses from
    // the same address can never lock the emulator's operator (and `limiter reset`) out.
    if (token && safeEqual(token, ctx.adminToken)) {
      c.set('controlScope', {kind: 'admin'});
      await next();
      return;
    }
    const issued = token ? readControlToken(ctx.adminToken, token) : undefined;
    if (issued) {
      c.set('controlScope', issued);
      await next();
      return;
    }
    // A budget of its own: failed API keys on /v1 never lock the control surface out.
    const reservation = await reserveOrRefuse(ctx.controlLimiter, limiterAddress(c));
    reservation.failed();
    c.set('refusal', {
      reason: token ? 'wrong_admin_token' : 'missing',
      detail:
        'the control surface takes the admin token of emulator.json or a control token this emulator issued',
    });
    throw new HttpError(
      401,
      'unauthorized',
      'the emulator control surface needs its admin token (see emulator.json)',
    );
  });
}
