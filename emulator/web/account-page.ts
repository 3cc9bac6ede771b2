// The account page: sign-in by email, then the org's API keys, webhook endpoints and deliveries. Served by the
// emulator itself, server-rendered, with one small script and one stylesheet of its own.
import {createHash} from 'node:crypto';
import {readFileSync} from 'node:fs';
import type {Context} from 'hono';
import {bodyLimit} from 'hono/body-limit';
import {
  isId,
  MAX_ACCOUNT_FORM_BYTES,
  MAX_ACTIVE_KEYS_PER_ORG,
  MAX_ENDPOINTS_PER_ORG,
  SIGN_IN_LINK_TTL_MS,
} from '../../src/definitions.js';
import type {EmulatorApp, EmulatorContext} from '../context.js';
import {listDeliveries} from '../ops/deliveries.js';
import {createEndpoint, deleteEndpoint, LOCAL_RECEIVER_WAY_OUT, listEndpoints} from '../ops/endpoints.js';
import {OperationError} from '../ops/errors.js';
import {createKey, listKeys, revokeKey} from '../ops/keys.js';
import {Accounts, parseEmail} from './accounts.js';
import type {SessionView} from './db/sessions.js';
import {readDeliveryDetail} from './delivery-detail.js';
import {
  clearCookie,
  csrfTokenFor,
  csrfTokenMatches,
  isTokenShaped,
  newToken,
  PAGE_HEADERS,
  PRE_SESSION_COOKIE,
  readCookie,
  SESSION_COOKIE,
  sameOrigin,
  setTokenCookie,
} from './security.js';
import {KeysPage, type NewSecret, RevokeKeyPage} from './views/keys.js';
import type {Assets, FormErrors, Viewer} from './views/layout.js';
import {
  CheckMailPage,
  ConfirmSignInPage,
  HomePage,
  LinkProblemPage,
  LoginPage,
  MailboxPage,
  ProblemPage,
  TeamPage,
} from './views/pages.js';
import {
  DeleteEndpointPage,
  DeliveriesPage,
  DeliveryPage,
  type NewEndpointSecret,
  NewEndpointPage,
  WebhooksPage,
} from './views/webhooks.js';

type Flash =
  | {kind: 'key'; created: NewSecret}
  | {kind: 'endpoint'; created: NewEndpointSecret}
  | {kind: 'notice'; text: string};

interface Asset {
  path: string;
  body: string;
  type: string;
}

/** The stylesheet and script, named by a hash of their content so browsers may keep them for good. */
export function loadAccountAssets(): {assets: Assets; files: Asset[]} {
  const load = (name: string, ext: string, type: string): Asset => {
    const body = readFileSync(new URL(`./assets/${name}.${ext}`, import.meta.url), 'utf8');
    const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
    return {path: `/account/assets/${name}.${hash}.${ext}`, body, type};
  };
  const css = load('account', 'css', 'text/css; charset=utf-8');
  const js = load('account', 'js', 'text/javascript; charset=utf-8');
  return {assets: {css: css.path, js: js.path}, files: [css, js]};
}

const HTML_DOCTYPE = '<!doctype html>';
/** A secret not picked up by the page it was made for within this time (real time) is dropped. */
const FLASH_KEPT_MS = 10 * 60_000;

export function registerAccountPage(app: EmulatorApp, ctx: EmulatorContext): void {
  const accounts = new Accounts(ctx);
  const {assets, files} = loadAccountAssets();
  // A secret shown once: kept in memory from the create to the next page view of the same session, no longer.
  const flashes = new Map<string, {page: 'keys' | 'webhooks'; flash: Flash; at: number}>();

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

  const accountBase = (c: Context) => `${serverOrigin(c)}/account`;

  /** The signed-in person, or undefined. */
  const sessionOf = async (c: Context): Promise<{session: SessionView; id: string} | undefined> => {
    const id = readCookie(c, SESSION_COOKIE);
    if (!id) return undefined;
    const session = await accounts.session(id);
    return session && {session, id};
  };

  const viewerOf = async (s: {session: SessionView; id: string}): Promise<Viewer> => ({
    email: s.session.email,
    orgName: s.session.orgName,
    orgId: s.session.orgId,
    role: s.session.role,
    csrf: csrfTokenFor(s.id),
    orgs: s.session.orgCount > 1 ? await accounts.memberships.orgsOf(s.session.personId) : undefined,
  });

  /** The CSRF token for forms shown before sign-in; sets the pre-session cookie it is bound to. */
  const preSessionToken = (c: Context): string => {
    let pre = readCookie(c, PRE_SESSION_COOKIE);
    if (!pre) {
      pre = newToken();
      setTokenCookie(c, PRE_SESSION_COOKIE, pre);
    }
    return csrfTokenFor(pre);
  };

  const loginPage = (
    c: Context,
    extra: {email?: string; errors?: FormErrors; note?: string} = {},
    status = 200,
  ) => render(c, LoginPage({assets, csrf: preSessionToken(c), ...extra}), status);

  /** A page for signed-in people: anyone else gets the sign-in page, never data. */
  const signedIn =
    (handler: (c: Context, s: {session: SessionView; id: string; viewer: Viewer}) => Promise<Response>) =>
    async (c: Context): Promise<Response> => {
      const s = await sessionOf(c);
      if (!s) return loginPage(c, {}, c.req.path === '/account' ? 200 : 401);
      return handler(c, {...s, viewer: await viewerOf(s)});
    };

  /**
   * A form post: same origin, a CSRF token that matches the cookie it was made for, and a readable body.
   * Signed-in posts check against the session; sign-in posts against the pre-session cookie.
   */
  const formPost =
    (
      mode: 'session' | 'pre',
      handler: (
        c: Context,
        form: URLSearchParams,
        s: {session: SessionView; id: string; viewer: Viewer} | undefined,
      ) => Promise<Response>,
    ) =>
    async (c: Context): Promise<Response> => {
      const s = await sessionOf(c);
      const form = await readForm(c);
      const bound = mode === 'session' ? s?.id : (s?.id ?? readCookie(c, PRE_SESSION_COOKIE));
      if (!form) {
        return render(
          c,
          ProblemPage({
            assets,
            viewer: s && (await viewerOf(s)),
            title: 'Form not readable',
            message: 'The pages here take ordinary form posts (application/x-www-form-urlencoded) only.',
          }),
          415,
        );
      }
      if (!sameOrigin(c) || !csrfTokenMatches(bound, form.get('csrf'))) {
        if (mode === 'session' && !s)
          return loginPage(c, {note: 'Your session has ended. Sign in again.'}, 401);
        return render(
          c,
          ProblemPage({
            assets,
            viewer: s && (await viewerOf(s)),
            title: 'Form refused',
            message:
              'This form did not come from this page, or it has expired. Go back, reload the page and try again.',
          }),
          403,
        );
      }
      if (mode === 'session' && !s)
        return loginPage(c, {note: 'Your session has ended. Sign in again.'}, 401);
      return handler(c, form, s && {...s, viewer: await viewerOf(s)});
    };

  const notFoundPage = (c: Context, viewer: Viewer | undefined, message: string, back?: string) =>
    render(c, ProblemPage({assets, viewer, title: 'Not found', message, back}), 404);

  /** The flash for this page (keys or webhooks), taken: a reload no longer has it. */
  const takeFlash = (s: {session: SessionView}, page: 'keys' | 'webhooks') => {
    const held = flashes.get(s.session.idHash);
    if (!held || held.page !== page) return undefined;
    flashes.delete(s.session.idHash);
    return Date.now() - held.at < FLASH_KEPT_MS ? held.flash : undefined;
  };
  const putFlash = (s: {session: SessionView}, page: 'keys' | 'webhooks', flash: Flash) => {
    // Bounded: a flash nobody came back for is dropped oldest first.
    if (flashes.size >= 1000) flashes.delete(flashes.keys().next().value as string);
    flashes.set(s.session.idHash, {page, flash, at: Date.now()});
  };

  // ---- Sign-in ----------------------------------------------------------------------------------------

  app.get(
    '/account',
    signedIn(async (c, s) => {
      const [keys, endpoints] = await Promise.all([
        listKeys(ctx, s.session.orgId),
        listEndpoints(ctx, s.session.orgId),
      ]);
      return render(
        c,
        HomePage({
          assets,
          viewer: s.viewer,
          activeKeys: keys.filter((k) => k.status === 'active').length,
          maxKeys: MAX_ACTIVE_KEYS_PER_ORG,
          endpoints: endpoints.length,
          maxEndpoints: MAX_ENDPOINTS_PER_ORG,
          apiUrl: serverOrigin(c),
        }),
      );
    }),
  );

  app.post(
    '/account/login',
    formPost('pre', async (c, form) => {
      const parsed = parseEmail(form.get('email'));
      if (!parsed.ok)
        return loginPage(c, {email: clip(form.get('email')), errors: {email: parsed.message}}, 400);
      await accounts.requestSignIn(parsed.email, accountBase(c));
      return render(c, CheckMailPage({assets, email: parsed.email, minutes: SIGN_IN_LINK_TTL_MS / 60_000}));
    }),
  );

  app.get('/account/sign-in', async (c) => {
    const token = c.req.query('token');
    if (!isTokenShaped(token)) return render(c, LinkProblemPage({assets, reason: 'unknown'}), 400);
    const seen = await accounts.peekLink(token);
    if (!seen.ok) return render(c, LinkProblemPage({assets, reason: seen.reason}), 400);
    const s = await sessionOf(c);
    const csrf = s ? csrfTokenFor(s.id) : preSessionToken(c);
    return render(c, ConfirmSignInPage({assets, csrf, token, email: seen.email}));
  });

  app.post(
    '/account/sign-in',
    formPost('pre', async (c, form, s) => {
      const token = form.get('token');
      if (!isTokenShaped(token)) return render(c, LinkProblemPage({assets, reason: 'unknown'}), 400);
      const result = await accounts.signIn(token, s?.session.idHash);
      if (!result.ok) return render(c, LinkProblemPage({assets, reason: result.reason}), 400);
      setTokenCookie(c, SESSION_COOKIE, result.sessionId);
      clearCookie(c, PRE_SESSION_COOKIE);
      return c.redirect('/account', 303);
    }),
  );

  app.post(
    '/account/logout',
    formPost('session', async (c, _form, s) => {
      if (s) {
        await accounts.signOut(s.session);
        flashes.delete(s.session.idHash);
      }
      clearCookie(c, SESSION_COOKIE);
      return c.redirect('/account', 303);
    }),
  );

  app.get('/account/mailbox', async (c) => {
    const s = await sessionOf(c);
    const mails = accounts.mailbox.list();
    const hashes = mails.flatMap((m) => (m.tokenHash ? [m.tokenHash] : []));
    const states = await accounts.links.states(hashes, ctx.clock.now());
    return render(c, MailboxPage({assets, viewer: s && (await viewerOf(s)), mails, states}));
  });

  app.post(
    '/account/org',
    formPost('session', async (c, form, s) => {
      const orgId = form.get('org_id');
      if (!s || !isId('org', orgId) || !(await accounts.switchOrg(s.session, orgId)))
        return notFoundPage(c, s?.viewer, 'You do not belong to that org.');
      return c.redirect('/account', 303);
    }),
  );

  // ---- Team -------------------------------------------------------------------------------------------

  const teamPage = async (
    c: Context,
    s: {session: SessionView; viewer: Viewer},
    extra: {email?: string; errors?: FormErrors; notice?: string} = {},
    status = 200,
  ) =>
    render(
      c,
      TeamPage({
        assets,
        viewer: s.viewer,
        members: await accounts.memberships.members(s.session.orgId),
        canInvite: s.session.role === 'owner',
        ...extra,
      }),
      status,
    );

  app.get(
    '/account/team',
    signedIn((c, s) => teamPage(c, s)),
  );

  app.post(
    '/account/team',
    formPost('session', async (c, form, s) => {
      if (!s) throw new Error('unreachable: session checked');
      if (s.session.role !== 'owner')
        return render(
          c,
          ProblemPage({
            assets,
            viewer: s.viewer,
            title: 'Not allowed',
            message: 'Only the org owner invites people.',
          }),
          403,
        );
      const parsed = parseEmail(form.get('email'));
      if (!parsed.ok)
        return teamPage(c, s, {email: clip(form.get('email')), errors: {email: parsed.message}}, 400);
      const added = await accounts.invite(s.session, parsed.email, accountBase(c));
      if (!added)
        return teamPage(
          c,
          s,
          {email: parsed.email, errors: {email: `${parsed.email} is already in this org.`}},
          400,
        );
      return teamPage(c, s, {
        notice: `${parsed.email} is now an admin. An invitation is in the mailbox; they sign in with that address.`,
      });
    }),
  );

  // ---- API keys ---------------------------------------------------------------------------------------

  const keysPage = async (
    c: Context,
    s: {session: SessionView; viewer: Viewer},
    extra: {form?: {name: string; expires: string}; errors?: FormErrors} = {},
    status = 200,
  ) => {
    const flash = status === 200 ? takeFlash(s, 'keys') : undefined;
    return render(
      c,
      KeysPage({
        assets,
        viewer: s.viewer,
        keys: await listKeys(ctx, s.session.orgId),
        created: flash?.kind === 'key' ? flash.created : undefined,
        notice: flash?.kind === 'notice' ? flash.text : undefined,
        apiUrl: serverOrigin(c),
        ...extra,
      }),
      status,
    );
  };

  app.get(
    '/account/keys',
    signedIn((c, s) => keysPage(c, s)),
  );

  app.post(
    '/account/keys',
    formPost('session', async (c, form, s) => {
      if (!s) throw new Error('unreachable: session checked');
      const name = clip(form.get('name'));
      const expires = clip(form.get('expires'));
      try {
        const {key, secret} = await createKey(ctx, {
          orgId: s.session.orgId,
          name,
          expires,
          createdBy: s.session.email,
        });
        putFlash(s, 'keys', {kind: 'key', created: {name: key.name, secret, expiresAt: key.expires_at}});
        return c.redirect('/account/keys', 303);
      } catch (err) {
        const errors = formErrors(err, ['name', 'expires']);
        return keysPage(c, s, {form: {name, expires}, errors}, statusOf(err));
      }
    }),
  );

  const keyOf = async (orgId: string, id: string) =>
    isId('apiKey', id) ? (await listKeys(ctx, orgId)).find((k) => k.id === id) : undefined;

  app.get(
    '/account/keys/:id/revoke',
    signedIn(async (c, s) => {
      const key = await keyOf(s.session.orgId, c.req.param('id') as string);
      if (!key) return notFoundPage(c, s.viewer, 'This org has no such API key.', '/account/keys');
      if (key.status !== 'active') return c.redirect('/account/keys', 303);
      return render(c, RevokeKeyPage({assets, viewer: s.viewer, keyRecord: key}));
    }),
  );

  app.post(
    '/account/keys/:id/revoke',
    formPost('session', async (c, _form, s) => {
      if (!s) throw new Error('unreachable: session checked');
      const id = c.req.param('id') as string;
      if (!isId('apiKey', id))
        return notFoundPage(c, s.viewer, 'This org has no such API key.', '/account/keys');
      try {
        const key = await revokeKey(ctx, {orgId: s.session.orgId, keyId: id});
        putFlash(s, 'keys', {
          kind: 'notice',
          text: `Key "${key.name}" (${key.prefix}…) is revoked: requests with it now get 401.`,
        });
        return c.redirect('/account/keys', 303);
      } catch (err) {
        if (err instanceof OperationError && err.code === 'not_found')
          return notFoundPage(c, s.viewer, 'This org has no such API key.', '/account/keys');
        throw err;
      }
    }),
  );

  // ---- Webhook endpoints ------------------------------------------------------------------------------

  app.get(
    '/account/webhooks',
    signedIn(async (c, s) => {
      const flash = takeFlash(s, 'webhooks');
      return render(
        c,
        WebhooksPage({
          assets,
          viewer: s.viewer,
          endpoints: await listEndpoints(ctx, s.session.orgId),
          created: flash?.kind === 'endpoint' ? flash.created : undefined,
          notice: flash?.kind === 'notice' ? flash.text : undefined,
        }),
      );
    }),
  );

  app.get(
    '/account/webhooks/new',
    signedIn(async (c, s) => {
      const count = (await listEndpoints(ctx, s.session.orgId)).length;
      if (count >= MAX_ENDPOINTS_PER_ORG) return c.redirect('/account/webhooks', 303);
      return render(c, NewEndpointPage({assets, viewer: s.viewer, allowLocal: ctx.allowLocalEndpoints}));
    }),
  );

  app.post(
    '/account/webhooks',
    formPost('session', async (c, form, s) => {
      if (!s) throw new Error('unreachable: session checked');
      const url = clip(form.get('url'), 4096).trim();
      const events = form.getAll('events').slice(0, 20);
      const descriptionText = clip(form.get('description'), 1000).trim();
      try {
        const {endpoint, secret, warnings} = await createEndpoint(ctx, {
          orgId: s.session.orgId,
          url,
          events,
          description: descriptionText === '' ? null : descriptionText,
        });
        putFlash(s, 'webhooks', {
          kind: 'endpoint',
          created: {endpointId: endpoint.id, url: endpoint.url, secret, warnings},
        });
        return c.redirect('/account/webhooks', 303);
      } catch (err) {
        const errors = formErrors(err, ['url', 'events', 'description']);
        // A local address on an emulator that refuses them: the operation names the ways to receive events
        // locally, which the page shows apart from the field's error.
        const wayOut = errors.url?.includes(LOCAL_RECEIVER_WAY_OUT) ?? false;
        if (wayOut && errors.url)
          errors.url = sentence(errors.url.replace(`; ${LOCAL_RECEIVER_WAY_OUT}`, ''));
        return render(
          c,
          NewEndpointPage({
            assets,
            viewer: s.viewer,
            allowLocal: ctx.allowLocalEndpoints,
            form: {url, events, description: descriptionText},
            errors,
            wayOut,
          }),
          statusOf(err),
        );
      }
    }),
  );

  const endpointOf = async (orgId: string, id: string) =>
    isId('webhookEndpoint', id) ? (await listEndpoints(ctx, orgId)).find((e) => e.id === id) : undefined;

  app.get(
    '/account/webhooks/:id/delete',
    signedIn(async (c, s) => {
      const endpoint = await endpointOf(s.session.orgId, c.req.param('id') as string);
      if (!endpoint)
        return notFoundPage(c, s.viewer, 'This org has no such webhook endpoint.', '/account/webhooks');
      return render(c, DeleteEndpointPage({assets, viewer: s.viewer, endpoint}));
    }),
  );

  app.post(
    '/account/webhooks/:id/delete',
    formPost('session', async (c, _form, s) => {
      if (!s) throw new Error('unreachable: session checked');
      const endpoint = await endpointOf(s.session.orgId, c.req.param('id') as string);
      if (!endpoint)
        return notFoundPage(c, s.viewer, 'This org has no such webhook endpoint.', '/account/webhooks');
      await deleteEndpoint(ctx, {orgId: s.session.orgId, endpointId: endpoint.id});
      putFlash(s, 'webhooks', {kind: 'notice', text: `The endpoint ${endpoint.url} is deleted.`});
      return c.redirect('/account/webhooks', 303);
    }),
  );

  app.get(
    '/account/webhooks/:id',
    signedIn(async (c, s) => {
      const endpoint = await endpointOf(s.session.orgId, c.req.param('id') as string);
      if (!endpoint)
        return notFoundPage(c, s.viewer, 'This org has no such webhook endpoint.', '/account/webhooks');
      let deliveries: Awaited<ReturnType<typeof listDeliveries>>;
      try {
        deliveries = await listDeliveries(ctx, {orgId: s.session.orgId, endpointId: endpoint.id});
      } catch (err) {
        if (!(err instanceof OperationError)) throw err;
        const message = sentence(err.message);
        return render(
          c,
          ProblemPage({assets, viewer: s.viewer, title: 'Deliveries unavailable', message}),
          err.status,
        );
      }
      return render(c, DeliveriesPage({assets, viewer: s.viewer, endpoint, deliveries}));
    }),
  );

  app.get(
    '/account/webhooks/:id/deliveries/:delivery',
    signedIn(async (c, s) => {
      const endpoint = await endpointOf(s.session.orgId, c.req.param('id') as string);
      const deliveryId = c.req.param('delivery') as string;
      const delivery =
        endpoint && isId('delivery', deliveryId)
          ? await readDeliveryDetail(ctx.db, {orgId: s.session.orgId, endpointId: endpoint.id, deliveryId})
          : undefined;
      if (!endpoint || !delivery)
        return notFoundPage(c, s.viewer, 'This org has no such delivery.', '/account/webhooks');
      return render(c, DeliveryPage({assets, viewer: s.viewer, endpoint, delivery}));
    }),
  );

  // Anything else under /account: a page, not the API's JSON error.
  app.all('/account/*', async (c) => {
    const s = await sessionOf(c);
    return notFoundPage(c, s && (await viewerOf(s)), 'There is no such page.');
  });
}

/**
 * The address this request reached, from the socket rather than the Host header: links in the mailbox and the
 * log must not point wherever a request's Host header says (someone could otherwise ask for a link for another
 * person's address that leads to their own server). In-process requests (tests) have no socket.
 */
function serverOrigin(c: Context): string {
  const socket = (c.env as {incoming?: {socket?: {localAddress?: string; localPort?: number}}} | undefined)
    ?.incoming?.socket;
  if (!socket?.localAddress || !socket.localPort) return new URL(c.req.url).origin;
  const address = socket.localAddress.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1');
  return `http://${address.includes(':') ? `[${address}]` : address}:${socket.localPort}`;
}

async function pageHeaders(c: Context, next: () => Promise<void>): Promise<void> {
  await next();
  if (c.req.path.startsWith('/account/assets/')) return;
  for (const [name, value] of Object.entries(PAGE_HEADERS)) c.res.headers.set(name, value);
}

function render(c: Context, page: unknown, status = 200): Response {
  return c.html(HTML_DOCTYPE + String(page), status as 200);
}

/** The form's fields, or undefined when the body is not an ordinary form post. */
async function readForm(c: Context): Promise<URLSearchParams | undefined> {
  const type = (c.req.header('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') return undefined;
  try {
    return new URLSearchParams(await c.req.text());
  } catch {
    return undefined;
  }
}

/** A form value as text, cut short so an oversized field cannot make a large page. */
function clip(value: string | null, max = 1000): string {
  return (value ?? '').slice(0, max);
}

function statusOf(err: unknown): number {
  if (err instanceof OperationError) return err.status;
  throw err;
}

/** How the forms name their fields, so `url must …` from an operation reads `URL must …` on the page. */
const FIELD_NAMES: Record<string, string> = {
  url: 'URL',
  events: 'Events',
  description: 'Description',
  name: 'Name',
  expires: 'Expires',
};

/** An operation's problems, each next to its field; anything not tied to a field goes to the form as a whole. */
function formErrors(err: unknown, fields: string[]): FormErrors {
  if (!(err instanceof OperationError)) throw err;
  const errors: FormErrors = {};
  for (const p of err.problems) {
    const field = fields.includes(p.field) ? p.field : 'form';
    const named = FIELD_NAMES[field];
    // Operations name the field apart from the message ("must use https://"); some messages start with it.
    const bare = p.message.toLowerCase().startsWith(`${field} `)
      ? p.message.slice(field.length + 1)
      : p.message;
    const message = named && /^(is|are|must|contains|has) /.test(bare) ? `${named} ${bare}` : bare;
    errors[field] ??= sentence(message);
  }
  if (Object.keys(errors).length === 0) errors.form = sentence(err.message);
  return errors;
}

const sentence = (text: string) => {
  const t = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?]$/.test(t) ? t : `${t}.`;
};
