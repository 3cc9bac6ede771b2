// The team page: who belongs to the org, and the owner inviting admins.
import type {Context} from 'hono';
import {parseEmail} from '../accounts.js';
import type {SessionView} from '../db/sessions.js';
import type {FormErrors, Viewer} from '../views/layout.js';
import {ProblemPage, TeamPage} from '../views/pages.js';
import {clip, type RegisterRoutes, render} from '../page-kit.js';

export const registerTeamRoutes: RegisterRoutes = (app, kit) => {
  const {accounts, assets, accountBase, signedIn, signedInPost} = kit;

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
};
