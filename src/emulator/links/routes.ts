// Sandbox links on the emulator's own port: the control routes that make and list them (admin token, under
// /_emulator), and the link URLs themselves (`/_links/<token>/…`), which need no key: the token is the credential.
import type {Context} from 'hono';
import type {ContentfulStatusCode} from 'hono/utils/http-status';
import type {AppEnv, EmulatorApp, EmulatorContext} from '../context.js';
import {HttpError} from '../http-error.js';
import {clientAddress} from '../net/client-address.js';
import {readJsonObject} from '../net/read-json.js';
import {createLink, LINK_PATH_PREFIX, linkNoun, listLinks, openLink} from '../ops/links.js';
import {serverOrigin} from '../web/page-kit.js';
import {LINK_PAGE_HEADERS, linkPage, refusalPage, wantsPage} from './pages.js';
import {FORWARDED_MARK, forward} from './proxy.js';

/** Longer than any token this emulator makes; longer paths are refused without a lookup. */
const MAX_TOKEN_LENGTH = 100;

// One answer for every token that names no link, whatever was wrong with it.
const noSuchLink = () =>
  new HttpError(
    404,
    'not_found',
    'no such link: the URL may be incomplete or mistyped (a link URL is shown once, when the link is made)',
  );

/**
 * `POST /_emulator/sandboxes/:id/links`. The sandbox routes call it for their `links` sub-path: a route of its own
 * beside their `/:id/:action` would leave the main router unable to compile into one expression.
 */
export function linkCreation(ctx: EmulatorContext) {
  return async (c: Context<AppEnv>): Promise<Response> => {
    const body = await readJsonObject(c, ['kind', 'key_id', 'port']);
    const created = await createLink(ctx, {
      sandboxId: c.req.param('id') as string,
      kind: body.kind,
      keyId: body.key_id,
      port: body.port,
      origin: serverOrigin(c),
    });
    return c.json(created, 201);
  };
}

/** `GET /_emulator/links` (admin token) and the link URLs themselves. */
export function registerLinkRoutes(app: EmulatorApp, ctx: EmulatorContext): void {
  app.get('/_emulator/links', async (c) => {
    const data = await listLinks(ctx, {
      orgId: c.req.query('org_id') ?? ctx.orgId,
      sandboxId: c.req.query('sandbox_id'),
    });
    return c.json({data});
  });

  const serve = serveLink(ctx);
  app.all(`${LINK_PATH_PREFIX}/*`, async (c) => {
    try {
      return await serve(c);
    } catch (err) {
      // Logged here, not by the app's last-resort handler, which would write the path and so the token.
      ctx.log(
        `internal error on ${c.req.method} ${LINK_PATH_PREFIX}/…: ${(err as Error).stack ?? String(err)}`,
      );
      return refusal(c, new HttpError(500, 'internal', 'internal error'));
    }
  });
}

function serveLink(ctx: EmulatorContext) {
  return async (c: Context<AppEnv>): Promise<Response> => {
    const refuse = (error: HttpError) => refusal(c, error);
    // A port session forwarding to the emulator's own port must not come back in through a link.
    if (c.req.header(FORWARDED_MARK)) {
      return refuse(
        new HttpError(400, 'invalid_request', 'a port session cannot forward to a link URL of the emulator'),
      );
    }
    const url = new URL(c.req.url);
    const rest = url.pathname.slice(LINK_PATH_PREFIX.length + 1);
    const slash = rest.indexOf('/');
    const token = slash < 0 ? rest : rest.slice(0, slash);
    const path = `${slash < 0 ? '/' : rest.slice(slash)}${url.search}`;
    const opened = token && token.length <= MAX_TOKEN_LENGTH ? await openLink(ctx, token) : undefined;
    if (!opened) return refuse(noSuchLink());

    const {link, state} = opened;
    const noun = linkNoun(link.kind);
    if (state.refusal === 'key_revoked' || state.refusal === 'key_expired') {
      const what =
        state.refusal === 'key_revoked'
          ? 'was revoked'
          : `expired at ${link.key.expiresAt?.toISOString() ?? 'its expiry'}`;
      return refuse(
        new HttpError(
          403,
          'forbidden',
          `this ${noun} stopped working: the API key that made it (${link.keyId}) ${what}`,
        ),
      );
    }
    if (state.refusal === 'sandbox_not_running') {
      const status = link.sandbox.status === 'running' ? 'expired' : link.sandbox.status;
      return refuse(
        new HttpError(
          409,
          'conflict',
          `this ${noun} works only while its sandbox runs, and sandbox ${link.sandboxId} is ${status}`,
        ),
      );
    }

    if (link.kind === 'port') {
      try {
        return await forward({
          request: c.req.raw,
          port: link.port as number,
          path,
          clientAddress: clientAddress(c),
        });
      } catch (err) {
        if (err instanceof HttpError) return refuse(err);
        throw err;
      }
    }
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
      return refuse(
        new HttpError(405, 'method_not_allowed', `a ${noun} answers GET and HEAD only`, {Allow: 'GET, HEAD'}),
      );
    }
    const sandbox = {id: link.sandboxId, name: link.sandbox.name};
    return c.html(linkPage({kind: link.kind, sandbox, path}), 200, {...LINK_PAGE_HEADERS});
  };
}

function refusal(c: Context<AppEnv>, error: HttpError): Response {
  if (wantsPage(c.req.header('accept'))) {
    return c.html(refusalPage(error), error.status as ContentfulStatusCode, {
      ...LINK_PAGE_HEADERS,
      ...error.headers,
    });
  }
  const res = error.toResponse();
  res.headers.set('Cache-Control', 'no-store');
  res.headers.set('Referrer-Policy', 'no-referrer');
  return res;
}
