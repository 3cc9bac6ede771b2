// Sign-in, sign-out, the mailbox, the overview and switching orgs; one named handler per route.
import type {Context} from 'hono';
import {
  MAX_ACTIVE_KEYS_PER_ORG,
  MAX_ENDPOINTS_PER_ORG,
  SIGN_IN_LINK_TTL_MS,
  isId,
} from '../../../definitions.js';
import {listEndpoints} from '../../ops/endpoints.js';
import {listKeys} from '../../ops/keys.js';
import {parseEmail} from '../accounts.js';
import {clip} from '../kit/forms.js';
import {render} from '../kit/response.js';
import {type PageKit, type RegisterRoutes, type SignedIn, serverOrigin} from '../page-kit.js';
import {
  clearCookie,
  csrfTokenFor,
  isTokenShaped,
  preSessionCookie,
  sessionCookie,
  setTokenCookie,
} from '../security.js';
import {CheckMailPage, ConfirmSignInPage, HomePage, LinkProblemPage, MailboxPage} from '../views/pages.js';

export const registerSignInRoutes: RegisterRoutes = (app, kit) => {
  app.get(
    '/account',
    kit.signedIn((c, s) => overviewPage(kit, c, s)),
  );
  app.post(
    '/account/login',
    kit.formPost('pre', (c, form) => loginPost(kit, c, form)),
  );
  app.get('/account/sign-in', (c) => confirmSignInPage(kit, c));
  app.post(
    '/account/sign-in',
    kit.formPost('pre', (c, form, s) => signInPost(kit, c, form, s)),
  );
  app.post(
    '/account/logout',
    kit.formPost('session', (c, _form, s) => logoutPost(kit, c, s)),
  );
  app.get('/account/mailbox', (c) => mailboxPage(kit, c));
  app.post(
    '/account/org',
    kit.formPost('session', (c, form, s) => switchOrgPost(kit, c, form, s)),
  );
};

/** GET /account: the overview of the org (keys and endpoints in use, invitations waiting for this person). */
async function overviewPage(kit: PageKit, c: Context, s: SignedIn): Promise<Response> {
  const [keys, endpoints] = await Promise.all([
    listKeys(kit.ctx, s.session.orgId),
    listEndpoints(kit.ctx, s.session.orgId),
  ]);
  return render(
    c,
    HomePage({
      assets: kit.assets,
      viewer: s.viewer,
      activeKeys: keys.filter((k) => k.status === 'active').length,
      maxKeys: MAX_ACTIVE_KEYS_PER_ORG,
      endpoints: endpoints.length,
      maxEndpoints: MAX_ENDPOINTS_PER_ORG,
      apiUrl: serverOrigin(c),
      invitations: await kit.accounts.invitations.forPerson(s.session.personId),
    }),
  );
}

/** POST /account/login: sends a sign-in link to the mailbox. */
async function loginPost(kit: PageKit, c: Context, form: URLSearchParams): Promise<Response> {
  const parsed = parseEmail(form.get('email'));
  if (!parsed.ok)
    return kit.loginPage(c, {email: clip(form.get('email')), errors: {email: parsed.message}}, 400);
  await kit.accounts.requestSignIn(parsed.email, kit.accountBase(c));
  const minutes = SIGN_IN_LINK_TTL_MS / 60_000;
  return render(c, CheckMailPage({assets: kit.assets, email: parsed.email, minutes}));
}

/** GET /account/sign-in?token=…: a link from the mailbox, confirmed by a button (a link preview signs no one in). */
async function confirmSignInPage(kit: PageKit, c: Context): Promise<Response> {
  const token = c.req.query('token');
  if (!isTokenShaped(token)) return render(c, LinkProblemPage({assets: kit.assets, reason: 'unknown'}), 400);
  const seen = await kit.accounts.peekLink(token);
  if (!seen.ok) return render(c, LinkProblemPage({assets: kit.assets, reason: seen.reason}), 400);
  const s = await kit.sessionOf(c);
  const csrf = s ? csrfTokenFor(s.id) : kit.preSessionToken(c);
  return render(c, ConfirmSignInPage({assets: kit.assets, csrf, token, email: seen.email}));
}

/** POST /account/sign-in: takes the link and starts the session. */
async function signInPost(
  kit: PageKit,
  c: Context,
  form: URLSearchParams,
  s: SignedIn | undefined,
): Promise<Response> {
  const token = form.get('token');
  if (!isTokenShaped(token)) return render(c, LinkProblemPage({assets: kit.assets, reason: 'unknown'}), 400);
  const result = await kit.accounts.signIn(token, s?.session.idHash);
  if (!result.ok) return render(c, LinkProblemPage({assets: kit.assets, reason: result.reason}), 400);
  setTokenCookie(c, sessionCookie(c), result.sessionId);
  clearCookie(c, preSessionCookie(c));
  return c.redirect('/account', 303);
}

/** POST /account/logout */
async function logoutPost(kit: PageKit, c: Context, s: SignedIn | undefined): Promise<Response> {
  if (s) {
    await kit.accounts.signOut(s.session);
    kit.flashes.drop(s);
  }
  clearCookie(c, sessionCookie(c));
  return c.redirect('/account', 303);
}

/** GET /account/mailbox: the mail the emulator would have sent, with the state of each link in it. */
async function mailboxPage(kit: PageKit, c: Context): Promise<Response> {
  const s = await kit.sessionOf(c);
  const mails = kit.accounts.mailbox.list();
  const hashes = mails.flatMap((m) => (m.tokenHash ? [m.tokenHash] : []));
  const states = await kit.accounts.links.states(hashes, kit.ctx.clock.now());
  return render(c, MailboxPage({assets: kit.assets, viewer: s && (await kit.viewerOf(s)), mails, states}));
}

/** POST /account/org: switches to another org of this person's. */
async function switchOrgPost(
  kit: PageKit,
  c: Context,
  form: URLSearchParams,
  s: SignedIn | undefined,
): Promise<Response> {
  const orgId = form.get('org_id');
  if (!s || !isId('org', orgId) || !(await kit.accounts.switchOrg(s.session, orgId)))
    return kit.notFoundPage(c, s?.viewer, 'You do not belong to that org.');
  return c.redirect('/account', 303);
}
