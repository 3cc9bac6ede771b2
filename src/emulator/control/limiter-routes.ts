// Lets a test suite start afresh: forgets every address's failed authentications on /v1 and /_emulator.
import type {LimiterReset} from '../../schemas/emulator.js';
import type {EmulatorApp, EmulatorContext} from '../context.js';

export function registerLimiterRoutes(app: EmulatorApp, ctx: EmulatorContext): void {
  app.post('/_emulator/limiter/reset', (c) => {
    ctx.limiter.reset();
    ctx.controlLimiter.reset();
    return c.json({reset: true} satisfies LimiterReset);
  });
}
