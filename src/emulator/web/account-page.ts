// The account page: sign-in by email, then the org's API keys, webhook endpoints and deliveries. Served by the
// emulator itself, server-rendered, with one small script and one stylesheet of its own.
import {type Context, Hono} from 'hono';
import {MAX_ACCOUNT_FORM_BYTES} from '../../definitions.js';
import type {AppEnv, EmulatorApp, EmulatorContext} from '../context.js';
import {answerWrongMethods, errorHandler, HttpError, notFound} from '../http-error.js';
import {pageHeaders, render} from './kit/response.js';
import {PageKit} from './page-kit.js';
import {registerKeyRoutes} from './routes/keys.js';
import {registerSignInRoutes} from './routes/sign-in.js';
import {registerTeamRoutes} from './routes/team.js';
import {registerWebhookRoutes} from './routes/webhooks.js';
import {ProblemPage} from './views/pages.js';
import {limitBody} from '../net/body-text.js';
import {servedPort} from '../net/request-header.js';
import {accountHostName, accountOrigin, localAccountUrl} from '@svc/client';
import {cannotResolveLocalhostNames, ownNamePage} from './own-name-page.js';

/** The account page's icon: a white `s` on the page's accent blue. */
const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#0b5cad"/>' +
  '<text x="16" y="23" font-family="system-ui,sans-serif" font-size="20" font-weight="700" fill="#fff" ' +
  'text-anchor="middle">s</text></svg>';

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
  registerFrontDoor(main);

  const kit = new PageKit(ctx);
  const ownName = atOwnName(ctx);
  app.use('/account', ownName);
  app.use('/account/*', ownName);
  serveAssets(app, kit);
  app.use('/account', pageHeaders);
  app.use('/account/*', pageHeaders);
  // `use`, not `post`: a route for one method would make every other path under /account answer 405.
  app.use('/account/*', formSizeLimit(kit));

  // The address with a trailing slash, as people type it and tools write it, is the same page.
  app.get('/account/', (c) => c.redirect('/account', 308));

  registerSignInRoutes(app, kit);
  registerTeamRoutes(app, kit);
  registerKeyRoutes(app, kit);
  registerWebhookRoutes(app, kit);

  // Anything else under /account: a page, not the API's JSON error.
  app.all('/account/*', async (c) => {
    const s = await kit.sessionOf(c);
    return kit.notFoundPage(c, s && (await kit.viewerOf(s)), 'There is no such page.');
  });
}

/**
 * The first address the ready message prints is the API's: a browser opened there is shown the account page,
 * and anything else is told where things are instead of a bare not_found. Browsers ask every site for an icon:
 * a small one of its own rather than a 404 on every page.
 */
function registerFrontDoor(main: EmulatorApp): void {
  main.get('/', (c) => {
    if ((c.req.header('accept') ?? '').includes('text/html')) return c.redirect('/account', 302);
    return notFound(
      'this is the svc API: its routes are under /v1 (with an API key), and the account page is at /account',
    ).toResponse();
  });
  main.get('/favicon.ico', () => {
    return new Response(FAVICON_SVG, {
      headers: {
        'Content-Type': 'image/svg+xml',
        'Cache-Control': 'public, max-age=86400',
        'X-Content-Type-Options': 'nosniff',
      },
    });
  });
}

/**
 * The page lives at its own name (svc-<port>.localhost) when it has one. Opened at a name every server on this
 * machine shares (localhost, 127.0.0.1), it sends the browser there and does nothing else: a cookie set at such a
 * name would go along to every other server browsed at it. Safari, which cannot resolve the name by itself yet,
 * gets a page that tries it and says how to fix it (own-name-page.ts).
 */
function atOwnName(ctx: EmulatorContext) {
  return async (c: Context<AppEnv>, next: () => Promise<void>): Promise<Response | undefined> => {
    if (!ctx.hosts.ownNames || !ctx.hosts.isShared(c.req.header('host') ?? new URL(c.req.url).host)) {
      await next();
      return undefined;
    }
    const url = new URL(c.req.url);
    if (c.req.method === 'GET' || c.req.method === 'HEAD') {
      const port = servedPort(c);
      if (cannotResolveLocalhostNames(c.req.header('user-agent'))) {
        const page = ownNamePage({
          origin: accountOrigin(port),
          hostName: accountHostName(port),
          pathAndQuery: `${url.pathname}${url.search}`,
        });
        return new Response(c.req.method === 'HEAD' ? null : page.body, {status: 200, headers: page.headers});
      }
      c.header('Cache-Control', 'no-store');
      return c.redirect(`${accountOrigin(port)}${url.pathname}${url.search}`, 302);
    }
    // Only a program posts here: the page never serves a form at these names.
    throw new HttpError(
      421,
      'misdirected_request',
      `the account page of this emulator is at ${localAccountUrl(servedPort(c))}, a name of its own whose ` +
        'cookies reach no other server on this machine; send its requests there',
    );
  };
}

/** The stylesheet and script, kept by browsers for good (their names change with their content). */
function serveAssets(app: Hono<AppEnv>, kit: PageKit): void {
  for (const file of kit.files) {
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
}

/** Forms have a size limit; a larger one gets a page that says so. */
function formSizeLimit(kit: PageKit) {
  return limitBody(MAX_ACCOUNT_FORM_BYTES, (c) =>
    render(
      c,
      ProblemPage({
        assets: kit.assets,
        title: 'Form too large',
        message: `A form here is at most ${MAX_ACCOUNT_FORM_BYTES / 1024} kB. Shorten what you entered and try again.`,
      }),
      413,
    ),
  );
}
