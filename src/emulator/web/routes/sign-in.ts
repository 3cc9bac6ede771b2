// Sign-in, sign-out, the mailbox, the overview and switching orgs.
import {
  MAX_ACTIVE_KEYS_PER_ORG,
  MAX_ENDPOINTS_PER_ORG,
  SIGN_IN_LINK_TTL_MS,
  isId,
} from '../../../definitions.js';
import {listEndpoints} from '../../ops/endpoints.js';
import {listKeys} from '../../ops/keys.js';
import {parseEmail} from '../accounts.js';
import {
  clearCookie,
  csrfTokenFor,
  isTokenShaped,
  preSessionCookie,
  sessionCookie,
  setTokenCookie,
} from '../security.js';
import {CheckMailPage, ConfirmSignInPage, HomePage, LinkProblemPage, MailboxPage} from '../views/pages.js';
import {clip, type RegisterRoutes, render, serverOrigin} from '../page-kit.js';

export const registerSignInRoutes: RegisterRoutes = (app, kit) => {
  const {
    ctx,
    accounts,
    assets,
    accountBase,
    sessionOf,
    viewerOf,
    preSessionToken,
    loginPage,
    signedIn,
    formPost,
    notFoundPage,
    dropFlash,
  } = kit;

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
          invitations: await accounts.invitations.forPerson(s.session.personId),
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
      setTokenCookie(c, sessionCookie(c), result.sessionId);
      clearCookie(c, preSessionCookie(c));
      return c.redirect('/account', 303);
    }),
  );

  app.post(
    '/account/logout',
    formPost('session', async (c, _form, s) => {
      if (s) {
        await accounts.signOut(s.session);
        dropFlash(s);
      }
      clearCookie(c, sessionCookie(c));
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
};
