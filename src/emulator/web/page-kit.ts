// What every account route shares, as one object whose parts stand alone: the session of a request and what the
// page frame shows of it, the CSRF check of a form post, the sign-in and problem pages, and the one-time
// messages (kit/flashes.ts). How a page is sent is kit/response.ts; reading a form, kit/forms.ts.
import type {Context} from 'hono';
import {accountOrigin, portOfAccountHostName} from '@svc/client';
import type {EmulatorApp, EmulatorContext} from '../context.js';
import {incomingOf} from '../node-binding.js';
import {servedPort} from '../net/request-header.js';
import {Accounts} from './accounts.js';
import type {SessionView} from './db/sessions.js';
import {Flashes} from './kit/flashes.js';
import {readForm} from './kit/forms.js';
import {type Asset, loadAccountAssets, render} from './kit/response.js';
import {
  csrfTokenFor,
  csrfTokenMatches,
  newToken,
  preSessionCookie,
  readCookie,
  sameOrigin,
  sessionCookie,
  setTokenCookie,
} from './security.js';
import type {Assets, FormErrors, Viewer} from './views/layout.js';
import {LoginPage, ProblemPage} from './views/pages.js';

/** A request's session: the session and its cookie value. */
export interface Session {
  session: SessionView;
  id: string;
}

/** A signed-in request: the session, its cookie value, and what the page frame shows of them. */
export interface SignedIn extends Session {
  viewer: Viewer;
}

type Handler = (c: Context) => Promise<Response>;

const SESSION_ENDED = 'Your session has ended. Sign in again.';

export class PageKit {
  readonly accounts: Accounts;
  readonly assets: Assets;
  readonly files: Asset[];
  /** One-time messages, kept on the emulator's clock. */
  readonly flashes: Flashes;

  constructor(readonly ctx: EmulatorContext) {
    this.accounts = new Accounts(ctx);
    ({assets: this.assets, files: this.files} = loadAccountAssets());
    this.flashes = new Flashes(() => ctx.clock.nowMs());
  }

  /** Where links handed out (the mailbox, invitations) lead: the page's own name when this request came by it. */
  accountBase(c: Context): string {
    const own = this.ctx.hosts.ownNames && portOfAccountHostName(new URL(c.req.url).hostname) !== undefined;
    return `${own ? accountOrigin(servedPort(c)) : serverOrigin(c)}/account`;
  }

  /** The signed-in person, or undefined. */
  async sessionOf(c: Context): Promise<Session | undefined> {
    const id = readCookie(c, sessionCookie(c));
    if (!id) return undefined;
    const session = await this.accounts.session(id);
    return session && {session, id};
  }

  /** What the page frame shows of a session: who, which org, and the CSRF token of its forms. */
  async viewerOf(s: Session): Promise<Viewer> {
    return {
      email: s.session.email,
      orgName: s.session.orgName,
      orgId: s.session.orgId,
      role: s.session.role,
      csrf: csrfTokenFor(s.id),
      svc: this.ctx.svc,
      orgs: s.session.orgCount > 1 ? await this.accounts.memberships.orgsOf(s.session.personId) : undefined,
    };
  }

  /** The CSRF token for forms shown before sign-in; sets the pre-session cookie it is bound to. */
  preSessionToken(c: Context): string {
    let pre = readCookie(c, preSessionCookie(c));
    if (!pre) {
      pre = newToken();
      setTokenCookie(c, preSessionCookie(c), pre);
    }
    return csrfTokenFor(pre);
  }

  loginPage(
    c: Context,
    extra: {email?: string; errors?: FormErrors; note?: string} = {},
    status = 200,
  ): Response {
    return render(c, LoginPage({assets: this.assets, csrf: this.preSessionToken(c), ...extra}), status);
  }

  problemPage(
    c: Context,
    p: {viewer?: Viewer; title: string; message: string; back?: string},
    status: number,
  ): Response {
    return render(c, ProblemPage({assets: this.assets, ...p}), status);
  }

  notFoundPage(c: Context, viewer: Viewer | undefined, message: string, back?: string): Response {
    return this.problemPage(c, {viewer, title: 'Not found', message, back}, 404);
  }

  /** A page for signed-in people: anyone else gets the sign-in page, never data. */
  signedIn(handler: (c: Context, s: SignedIn) => Promise<Response>): Handler {
    return async (c) => {
      const s = await this.sessionOf(c);
      if (!s) return this.loginPage(c, {}, c.req.path === '/account' ? 200 : 401);
      return handler(c, {...s, viewer: await this.viewerOf(s)});
    };
  }

  /**
   * A form post: same origin, a CSRF token that matches the cookie it was made for, and a readable body.
   * Signed-in posts check against the session; sign-in posts against the pre-session cookie.
   */
  formPost(
    mode: 'session' | 'pre',
    handler: (c: Context, form: URLSearchParams, s: SignedIn | undefined) => Promise<Response>,
  ): Handler {
    return async (c) => {
      const s = await this.sessionOf(c);
      const form = await readForm(c);
      const bound = mode === 'session' ? s?.id : (s?.id ?? readCookie(c, preSessionCookie(c)));
      const viewer = async () => s && (await this.viewerOf(s));
      if (!form) {
        const message = 'The pages here take ordinary form posts (application/x-www-form-urlencoded) only.';
        return this.problemPage(c, {viewer: await viewer(), title: 'Form not readable', message}, 415);
      }
      if (!sameOrigin(c, this.ctx.hosts) || !csrfTokenMatches(bound, form.get('csrf'))) {
        if (mode === 'session' && !s) return this.loginPage(c, {note: SESSION_ENDED}, 401);
        const message =
          'This form did not come from this page, or it has expired. Go back, reload the page and try again.';
        return this.problemPage(c, {viewer: await viewer(), title: 'Form refused', message}, 403);
      }
      if (mode === 'session' && !s) return this.loginPage(c, {note: SESSION_ENDED}, 401);
      return handler(c, form, s && {...s, viewer: await this.viewerOf(s)});
    };
  }

  /** A form post of a signed-in person: formPost('session') has already answered one without a session. */
  signedInPost(handler: (c: Context, form: URLSearchParams, s: SignedIn) => Promise<Response>): Handler {
    return this.formPost('session', async (c, form, s) => {
      if (!s) throw new Error('unreachable: session checked');
      return handler(c, form, s);
    });
  }
}

/** The routes of one part of the account page. */
export type RegisterRoutes = (app: EmulatorApp, kit: PageKit) => void;

/**
 * The address this request reached, from the socket rather than the Host header: links in the mailbox and the
 * log must not point wherever a request's Host header says (someone could otherwise ask for a link for another
 * person's address that leads to their own server). In-process requests (tests) have no socket.
 */
export function serverOrigin(c: Context): string {
  const socket = incomingOf(c)?.socket;
  if (!socket?.localAddress || !socket.localPort) return new URL(c.req.url).origin;
  const address = socket.localAddress.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1');
  return `http://${address.includes(':') ? `[${address}]` : address}:${socket.localPort}`;
}
