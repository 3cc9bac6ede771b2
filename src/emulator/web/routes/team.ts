// The team page: who belongs to the org, the owner inviting admins and withdrawing invitations not yet taken,
// an admin leaving; and an invitee accepting or declining an invitation (shown on their overview).
import {isId} from '../../../definitions.js';
import type {Context} from 'hono';
import {parseEmail} from '../accounts.js';
import type {SessionView} from '../db/sessions.js';
import type {FormErrors, Viewer} from '../views/layout.js';
import {ProblemPage, TeamPage} from '../views/pages.js';
import {clip, type RegisterRoutes, render} from '../page-kit.js';

export const registerTeamRoutes: RegisterRoutes = (app, kit) => {
  const {accounts, assets, accountBase, signedIn, signedInPost, notFoundPage} = kit;

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
        invitations: await accounts.invitations.forOrg(s.session.orgId),
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
    signedInPost(async (c, form, s) => {
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
      const outcome = await accounts.invite(s.session, parsed.email, accountBase(c));
      if (outcome !== 'offered') {
        const why =
          outcome === 'member'
            ? `${parsed.email} is already in this org.`
            : `${parsed.email} already has an invitation waiting.`;
        return teamPage(c, s, {email: parsed.email, errors: {email: why}}, 400);
      }
      return teamPage(c, s, {
        notice: `An invitation for ${parsed.email} is in the mailbox. They become an admin once they sign in with that address and accept it.`,
      });
    }),
  );

  app.post(
    '/account/team/invitations/:person/withdraw',
    signedInPost(async (c, _form, s) => {
      const person = c.req.param('person') as string;
      if (!isId('user', person) || !(await accounts.withdraw(s.session, person)))
        return notFoundPage(c, s.viewer, 'This org has no such invitation waiting.', '/account/team');
      return teamPage(c, s, {notice: 'The invitation is withdrawn.'});
    }),
  );

  app.post(
    '/account/team/leave',
    signedInPost(async (c, _form, s) => {
      if (!(await accounts.leave(s.session)))
        return render(
          c,
          ProblemPage({
            assets,
            viewer: s.viewer,
            title: 'Not allowed',
            message: 'The owner cannot leave their own org.',
            back: '/account/team',
          }),
          403,
        );
      return c.redirect('/account', 303);
    }),
  );

  for (const answer of ['accept', 'decline'] as const) {
    app.post(
      `/account/invitations/:org/${answer}`,
      signedInPost(async (c, _form, s) => {
        const org = c.req.param('org') as string;
        const done =
          isId('org', org) &&
          (answer === 'accept'
            ? await accounts.accept(s.session, org)
            : await accounts.decline(s.session, org));
        if (!done) return notFoundPage(c, s.viewer, 'There is no such invitation waiting for you.');
        return c.redirect('/account', 303);
      }),
    );
  }
};
