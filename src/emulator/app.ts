// Builds the emulator's HTTP app over a context without listening, so tests can call app.request() in-process.
import {Hono} from 'hono';
import {registerV1Routes} from './api/v1.js';
import type {AppEnv, EmulatorApp, EmulatorContext, EmulatorPlugin} from './context.js';
import {registerChaosRoutes} from './control/chaos-routes.js';
import {registerDeliveryControlRoutes} from './control/delivery-routes.js';
import {registerLimiterRoutes} from './control/limiter-routes.js';
import {registerLogRoutes} from './control/log-routes.js';
import {registerOpenApiRoute, registerReadyRoute} from './control/openapi-route.js';
import {registerRelayRoutes} from './control/relay-routes.js';
import {registerSandboxRoutes} from './control/sandbox-routes.js';
import {registerStateRoutes} from './control/state-routes.js';
import {registerControlRoutes} from './control/routes.js';
import {logRequests} from './request-log.js';
import {answerWrongMethods, errorHandler, notFound} from './http-error.js';
import {registerLinkRoutes} from './links/routes.js';
import {hostCheck} from './net/host-policy.js';
import {registerAccountPage} from './web/account-page.js';

export interface CreateAppOptions {
  /** Extra parts whose routes are mounted after the emulator's own. */
  plugins?: EmulatorPlugin[];
}

export function createApp(ctx: EmulatorContext, options: CreateAppOptions = {}): EmulatorApp {
  const app = new Hono<AppEnv>();
  app.onError(errorHandler(ctx.log));
  app.notFound(() => notFound('no such route').toResponse());
  // First, so it times the whole request and sees the final answer, errors included.
  app.use(logRequests(ctx.requestLog, ctx.clock));
  // First of all, for every route present and to come: a request addressed to a name this emulator does not
  // answer to (DNS rebinding) gets nothing else done.
  app.use(hostCheck(ctx.hosts));
  // Each request's reads from the caches are as fresh as the database (on a shared PostgreSQL, db/read-barrier.ts).
  app.use((_c, next) => ctx.reads.run(next));
  // An answer made once the emulator stops (a wait it ended, a log follower it answered) closes its connection:
  // left idle and kept alive, that connection would hold the server's close up for a second.
  app.use(async (c, next) => {
    await next();
    if (ctx.engine.stopping.aborted) c.header('Connection', 'close');
  });
  if (ctx.clock.mode !== 'real') {
    // Every answer is dated by the emulator's clock, as a server's Date header is by its own, so clients
    // count "expires in 3 days" from the time the emulator lives in.
    app.use(async (c, next) => {
      await next();
      c.res.headers.set('Date', ctx.clock.now().toUTCString());
    });
  }
  answerWrongMethods(app);

  registerV1Routes(app, ctx);
  // Before the control routes' admin check: the one control path the contract leaves open.
  registerReadyRoute(app);
  registerControlRoutes(app, ctx);
  registerOpenApiRoute(app);
  registerLimiterRoutes(app, ctx);
  registerLinkRoutes(app, ctx);
  registerStateRoutes(app, ctx);
  registerLogRoutes(app, ctx);
  registerAccountPage(app, ctx);
  // The moving parts' control routes: sandboxes and `svc trigger`, the relay behind `svc listen`, a delivery's
  // detail and resend, delivery chaos (over ctx.sandboxes and ctx.engine).
  registerSandboxRoutes(app, ctx);
  registerRelayRoutes(app, ctx);
  registerDeliveryControlRoutes(app, ctx);
  registerChaosRoutes(app, ctx);
  for (const plugin of options.plugins ?? []) plugin.routes?.(app, ctx);
  return app;
}
