// What every account route shares: the session of a request, its CSRF check, the page frame, one-time
// messages (a secret shown once), and how an operation's problems land next to their fields.
import {createHash} from 'node:crypto';
import {readFileSync} from 'node:fs';
import type {Context} from 'hono';
import {displayText} from '../../definitions.js';
import type {EmulatorApp, EmulatorContext} from '../context.js';
import {OperationError} from '../operation-error.js';
import {Accounts} from './accounts.js';
import type {SessionView} from './db/sessions.js';
import {
  csrfTokenFor,
  csrfTokenMatches,
  newToken,
  PAGE_HEADERS,
  preSessionCookie,
  readCookie,
  sessionCookie,
  sameOrigin,
  setTokenCookie,
} from './security.js';
import {servedPort} from '../net/request-header.js';
import {accountOrigin, portOfAccountHostName} from '@svc/client';
import type {NewSecret} from './views/keys.js';
import type {Assets, FormErrors, Viewer} from './views/layout.js';
import {LoginPage, ProblemPage} from './views/pages.js';
import type {NewEndpointSecret} from './views/webhooks.js';

/** The page a flash waits for. */
export type FlashPage = 'keys' | 'webhooks' | 'delivery';

export type Flash =
  | {kind: 'key'; created: NewSecret}
  | {kind: 'endpoint'; created: NewEndpointSecret}
  | {kind: 'notice'; text: string};

export interface Asset {
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

/** A signed-in request: the session, its cookie value, and what the page frame shows of them. */
export interface SignedIn {
  session: SessionView;
  id: string;
  viewer: Viewer;
}

export type PageKit = ReturnType<typeof createPageKit>;

export function createPageKit(ctx: EmulatorContext) {
  const accounts = new Accounts(ctx);
  const {assets, files} = loadAccountAssets();
  // A secret shown once: kept in memory from the create to the next page view of the same session, no longer.
  const flashes = new Map<string, {page: FlashPage; flash: Flash; at: number}>();

  /** Where links handed out (the mailbox, invitations) lead: the page's own name when this request came by it. */
  const accountBase = (c: Context) => {
    const own = ctx.hosts.ownNames && portOfAccountHostName(new URL(c.req.url).hostname) !== undefined;
    return `${own ? accountOrigin(servedPort(c)) : serverOrigin(c)}/account`;
  };

  /** The signed-in person, or undefined. */
  const sessionOf = async (c: Context): Promise<{session: SessionView; id: string} | undefined> => {
    const id = readCookie(c, sessionCookie(c));
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
    svc: ctx.svc,
    orgs: s.session.orgCount > 1 ? await accounts.memberships.orgsOf(s.session.personId) : undefined,
  });

  /** The CSRF token for forms shown before sign-in; sets the pre-session cookie it is bound to. */
  const preSessionToken = (c: Context): string => {
    let pre = readCookie(c, preSessionCookie(c));
    if (!pre) {
      pre = newToken();
      setTokenCookie(c, preSessionCookie(c), pre);
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
    (handler: (c: Context, s: SignedIn) => Promise<Response>) =>
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
      handler: (c: Context, form: URLSearchParams, s: SignedIn | undefined) => Promise<Response>,
    ) =>
    async (c: Context): Promise<Response> => {
      const s = await sessionOf(c);
      const form = await readForm(c);
      const bound = mode === 'session' ? s?.id : (s?.id ?? readCookie(c, preSessionCookie(c)));
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
      if (!sameOrigin(c, ctx.hosts) || !csrfTokenMatches(bound, form.get('csrf'))) {
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

  /** A form post of a signed-in person: formPost('session') has already answered one without a session. */
  const signedInPost = (handler: (c: Context, form: URLSearchParams, s: SignedIn) => Promise<Response>) =>
    formPost('session', async (c, form, s) => {
      if (!s) throw new Error('unreachable: session checked');
      return handler(c, form, s);
    });

  const notFoundPage = (c: Context, viewer: Viewer | undefined, message: string, back?: string) =>
    render(c, ProblemPage({assets, viewer, title: 'Not found', message, back}), 404);

  /** The flash for this page (keys or webhooks), taken: a reload no longer has it. */
  const takeFlash = (s: {session: SessionView}, page: FlashPage) => {
    const held = flashes.get(s.session.idHash);
    if (!held || held.page !== page) return undefined;
    flashes.delete(s.session.idHash);
    return Date.now() - held.at < FLASH_KEPT_MS ? held.flash : undefined;
  };
  const putFlash = (s: {session: SessionView}, page: FlashPage, flash: Flash) => {
    // Bounded: a flash nobody came back for is dropped oldest first.
    if (flashes.size >= 1000) flashes.delete(flashes.keys().next().value as string);
    flashes.set(s.session.idHash, {page, flash, at: Date.now()});
  };
  const dropFlash = (s: {session: SessionView}) => flashes.delete(s.session.idHash);

  return {
    ctx,
    accounts,
    assets,
    files,
    accountBase,
    sessionOf,
    viewerOf,
    preSessionToken,
    loginPage,
    signedIn,
    formPost,
    signedInPost,
    notFoundPage,
    takeFlash,
    putFlash,
    dropFlash,
  };
}

/** The routes of one part of the account page. */
export type RegisterRoutes = (app: EmulatorApp, kit: PageKit) => void;

/**
 * The address this request reached, from the socket rather than the Host header: links in the mailbox and the
 * log must not point wherever a request's Host header says (someone could otherwise ask for a link for another
 * person's address that leads to their own server). In-process requests (tests) have no socket.
 */
export function serverOrigin(c: Context): string {
  const socket = (c.env as {incoming?: {socket?: {localAddress?: string; localPort?: number}}} | undefined)
    ?.incoming?.socket;
  if (!socket?.localAddress || !socket.localPort) return new URL(c.req.url).origin;
  const address = socket.localAddress.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1');
  return `http://${address.includes(':') ? `[${address}]` : address}:${socket.localPort}`;
}

export async function pageHeaders(c: Context, next: () => Promise<void>): Promise<void> {
  await next();
  if (c.req.path.startsWith('/account/assets/')) return;
  for (const [name, value] of Object.entries(PAGE_HEADERS)) c.res.headers.set(name, value);
}

/**
 * The page as sent. hono/jsx escapes text for HTML; the text policy then writes out every control and invisible
 * character (a bidi override in a key name, a zero-width space in an address) as `\uXXXX`, so outside text can
 * neither reorder a row nor hide part of itself. The templates hold none of them, so only outside text changes.
 */
export function render(c: Context, page: unknown, status = 200): Response {
  return c.html(displayText(HTML_DOCTYPE + String(page), {multiline: true}), status as 200);
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
export function clip(value: string | null, max = 1000): string {
  return (value ?? '').slice(0, max);
}

export function statusOf(err: unknown): number {
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
export function formErrors(err: unknown, fields: string[]): FormErrors {
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

export const sentence = (text: string) => {
  const t = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?]$/.test(t) ? t : `${t}.`;
};
