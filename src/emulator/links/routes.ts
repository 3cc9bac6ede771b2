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
import type {CutReason} from '../sandboxes/link-traffic.js';
import {takeUpgrade, tunnel} from './upgrade.js';
import {isHostOfToken, linkOrigin} from '../net/link-host.js';
import {nodeOf} from '../node-binding.js';
import {servedPort} from '../net/request-header.js';
import type {LinkRefusal, LinkView} from '../db/sandbox-links.js';
import {MAX_SANDBOX_PORT, MIN_SANDBOX_PORT} from '../../definitions.js';
import {portOfAccountHostName} from '@svc/client';

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
    const port = servedPort(c);
    const created = await createLink(ctx, {
      sandboxId: c.req.param('id') as string,
      kind: body.kind,
      keyId: body.key_id,
      port: body.port,
      origin: serverOrigin(c),
      emulatorPort: port,
      portSessionOrigin: ctx.hosts.ownNames ? (token) => linkOrigin(token, port) : undefined,
    });
    return c.json(created, 201);
  };
}

/** `GET /_emulator/links` (admin token) and the link URLs themselves. */
export function registerLinkRoutes(app: EmulatorApp, ctx: EmulatorContext): void {
  app.get('/_emulator/links', async (c) => {
    const data = await listLinks(ctx, {
      orgId: c.req.query('org_id') ?? ctx.current.orgId,
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
    const port = servedPort(c);
    const host = c.req.header('host') ?? url.host;
    const atLinkHost = ctx.hosts.isLinkHost(host, port);
    // A port session's own name serves that port session only.
    if (atLinkHost && !isHostOfToken(url.hostname, token)) return refuse(noSuchLink());
    const seen = ctx.linkTraffic.changes;
    const opened = token && token.length <= MAX_TOKEN_LENGTH ? await openLink(ctx, token) : undefined;
    if (!opened) return refuse(noSuchLink());

    const {link, state} = opened;
    if (link.kind !== 'port' && atLinkHost) return refuse(noSuchLink());
    if (state.refusal) return refuse(stoppedLink(link, state.refusal));
    if (link.kind !== 'port') return linkPageAnswer(c, link, path);
    if (!atLinkHost) {
      // Served only at its own name: anywhere else (the account page's name, the names every local server
      // shares) the app behind it would share an origin, and so cookies and storage, with what is served there.
      if (!ctx.hosts.ownNames) return refuse(noOwnNames());
      c.header('Cache-Control', 'no-store');
      c.header('Referrer-Policy', 'no-referrer');
      return c.redirect(`${linkOrigin(token, port)}${url.pathname}${url.search}`, 308);
    }
    if (
      link.port === null ||
      link.port < MIN_SANDBOX_PORT ||
      link.port > MAX_SANDBOX_PORT ||
      link.port === port
    ) {
      return refuse(
        new HttpError(
          409,
          'conflict',
          `this port session names port ${link.port}, which it cannot forward to: make a new one for your app's port`,
        ),
      );
    }
    const traffic = ctx.linkTraffic;
    const hold = (cut: (error: HttpError) => void) =>
      traffic.open(link, seen, (why) => cut(cutError(link, why)));
    const by = {clientAddress: clientAddress(c), host, proto: url.protocol.replace(':', '')};
    const answerTimeoutMs = traffic.answerTimeoutMs;
    const node = nodeOf(c);
    const upgrade = takeUpgrade(node?.incoming);
    if (upgrade) {
      const status = await tunnel({
        ...upgrade,
        request: c.req.raw,
        port: link.port,
        path,
        by,
        answerTimeoutMs,
        timers: traffic?.timers,
        hold,
      });
      c.set('upgraded', status);
      return new Response(null, {headers: {'x-hono-already-sent': '1'}});
    }
    try {
      return await forward({
        request: c.req.raw,
        port: link.port,
        path,
        by,
        answerTimeoutMs,
        timers: traffic?.timers,
        outgoing: node?.outgoing,
        hold,
      });
    } catch (err) {
      if (err instanceof HttpError) return refuse(err);
      throw err;
    }
  };
}

/** The answer to a request to a link that stopped working, and the error that cuts traffic open through it. */
function stoppedLink(link: LinkView, why: LinkRefusal): HttpError {
  const noun = linkNoun(link.kind);
  if (why === 'key_revoked' || why === 'key_expired') {
    const what =
      why === 'key_revoked'
        ? 'was revoked'
        : `expired at ${link.key.expiresAt?.toISOString() ?? 'its expiry'}`;
    return new HttpError(
      403,
      'forbidden',
      `this ${noun} stopped working: the API key that made it (${link.keyId}) ${what}`,
    );
  }
  const status = link.sandbox.status === 'running' ? 'expired' : link.sandbox.status;
  return new HttpError(
    409,
    'conflict',
    `this ${noun} works only while its sandbox runs, and sandbox ${link.sandboxId} is ${status}`,
  );
}

function cutError(link: LinkView, why: CutReason): HttpError {
  if (why === 'stopping') return new HttpError(503, 'vault_unavailable', 'the emulator is stopping');
  if (why === 'link_gone') return noSuchLink();
  if (why === 'unchecked')
    return new HttpError(502, 'bad_gateway', 'this port session could not be checked; try again');
  // The sandbox's state when the link was opened is stale: the message names the key, or says it no longer runs.
  const noun = linkNoun(link.kind);
  return why === 'sandbox_not_running'
    ? new HttpError(
        409,
        'conflict',
        `this ${noun} works only while its sandbox runs, and sandbox ${link.sandboxId} stopped or expired`,
      )
    : stoppedLink(link, why);
}

const noOwnNames = () =>
  new HttpError(
    421,
    'misdirected_request',
    'a port session is served at a name of its own under .localhost, which browsers reach on loopback only; ' +
      'this emulator listens elsewhere',
  );

function linkPageAnswer(c: Context<AppEnv>, link: LinkView, path: string): Response {
  const url = new URL(c.req.url);
  if (portOfAccountHostName(url.hostname) !== undefined) {
    // Nothing of a link at the account page's own name: its pages are served at the emulator's address.
    c.header('Cache-Control', 'no-store');
    return c.redirect(`${serverOrigin(c)}${url.pathname}${url.search}`, 308);
  }
  const noun = linkNoun(link.kind);
  if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
    return refusal(
      c,
      new HttpError(405, 'method_not_allowed', `a ${noun} answers GET and HEAD only`, {Allow: 'GET, HEAD'}),
    );
  }
  const sandbox = {id: link.sandboxId, name: link.sandbox.name};
  return c.html(linkPage({kind: link.kind as 'desktop' | 'browser', sandbox, path}), 200, {
    ...LINK_PAGE_HEADERS,
  });
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
