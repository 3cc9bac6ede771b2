// The account page: sign-in by email, then the org's API keys, webhook endpoints and deliveries. Served by the
// emulator itself, server-rendered, with one small script and one stylesheet of its own.
import {Hono} from 'hono';
import {bodyLimit} from 'hono/body-limit';
import {MAX_ACCOUNT_FORM_BYTES} from '../../src/definitions.js';
import type {AppEnv, EmulatorApp, EmulatorContext} from '../context.js';
import {answerWrongMethods, errorHandler} from '../http-error.js';
import {createPageKit, pageHeaders, render} from './page-kit.js';
import {registerKeyRoutes} from './routes/keys.js';
import {registerSignInRoutes} from './routes/sign-in.js';
import {registerTeamRoutes} from './routes/team.js';
import {registerWebhookRoutes} from './routes/webhooks.js';
import {ProblemPage} from './views/pages.js';

/**
 * The pages are an app of their own, reached through two routes of the emulator's: their many routes would
 * otherwise leave the main router unable to compile into one expression (a static `webhooks/new` beside
 * `webhooks/:id/delete`), and every /v1 request would pay for a slower router.
 */
export function registerAccountPage(main: EmulatorApp, ctx: EmulatorContext): void {
  const app = new Hono<AppEnv>();
  app.onError(errorHandler(ctx.log));
  answerWrongMethods(app);
  const toPages = (c: {req: {raw: Request}; env: unknown}) => app.fetch(c.req.raw, c.env);
  main.all('/account', toPages);
  main.all('/account/*', toPages);

  const kit = createPageKit(ctx);
  const {assets, files, sessionOf, viewerOf, notFoundPage} = kit;

  for (const file of files) {
    app.get(file.path, () => {
      return new Response(file.body, {
        headers: {
          'Content-Type': file.type,
          'Cache-Control': 'public, max-age=31536000, immutable',
          'X-Content-Type-Options': 'nosniff',
        },
      });
    });
  }

  app.use('/account', pageHeaders);
  app.use('/account/*', pageHeaders);
  // `use`, not `post`: a route for one method would make every other path under /account answer 405.
  app.use(
    '/account/*',
    bodyLimit({
      maxSize: MAX_ACCOUNT_FORM_BYTES,
      onError: (c) =>
        render(
          c,
          ProblemPage({
            assets,
            title: 'Form too large',
            message: `A form here is at most ${MAX_ACCOUNT_FORM_BYTES / 1024} kB. Shorten what you entered and try again.`,
          }),
          413,
        ),
    }),
  );

  // The address with a trailing slash, as people type it and tools write it, is the same page.
  app.get('/account/', (c) => c.redirect('/account', 308));

  registerSignInRoutes(app, kit);
  registerTeamRoutes(app, kit);
  registerKeyRoutes(app, kit);
  registerWebhookRoutes(app, kit);

  // Anything else under /account: a page, not the API's JSON error.
  app.all('/account/*', async (c) => {
    const s = await sessionOf(c);
    return notFoundPage(c, s && (await viewerOf(s)), 'There is no such page.');
  });
}
