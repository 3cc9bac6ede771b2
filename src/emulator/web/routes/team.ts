// The team page: who belongs to the org, the owner inviting admins and withdrawing invitations not yet taken,
// an admin leaving; and an invitee accepting or declining an invitation (shown on their overview). One named
// handler per route.
import type {Context} from 'hono';
import {isId} from '../../../definitions.js';
import {parseEmail} from '../accounts.js';
import {clip} from '../kit/forms.js';
import {render} from '../kit/response.js';
import type {PageKit, RegisterRoutes, SignedIn} from '../page-kit.js';
import type {FormErrors} from '../views/layout.js';
import {TeamPage} from '../views/pages.js';

export const registerTeamRoutes: RegisterRoutes = (app, kit) => {
  app.get(
    '/account/team',
    kit.signedIn((c, s) => teamPage(kit, c, s)),
  );
  app.post(
    '/account/team',
    kit.signedInPost((c, form, s) => invitePost(kit, c, form, s)),
  );
  app.post(
    '/account/team/invitations/:person/withdraw',
    kit.signedInPost((c, _form, s) => withdrawPost(kit, c, s)),
  );
  app.post(
    '/account/team/leave',
    kit.signedInPost((c, _form, s) => leavePost(kit, c, s)),
  );
  for (const answer of ['accept', 'decline'] as const) {
    app.post(
      `/account/invitations/:org/${answer}`,
      kit.signedInPost((c, _form, s) => answerInvitationPost(kit, c, s, answer)),
    );
  }
};

/** GET /account/team: the members and invitations waiting; also the invite form again with its problem. */
async function teamPage(
  kit: PageKit,
  c: Context,
  s: SignedIn,
  extra: {email?: string; errors?: FormErrors; notice?: string} = {},
  status = 200,
): Promise<Response> {
  return render(
    c,
    TeamPage({
      assets: kit.assets,
      viewer: s.viewer,
      members: await kit.accounts.memberships.members(s.session.orgId),
      invitations: await kit.accounts.invitations.forOrg(s.session.orgId),
      canInvite: s.session.role === 'owner',
      ...extra,
    }),
    status,
  );
}

/** POST /account/team: the owner invites an address (the invitation lands in the mailbox). */
async function invitePost(kit: PageKit, c: Context, form: URLSearchParams, s: SignedIn): Promise<Response> {
  if (s.session.role !== 'owner') {
    const message = 'Only the org owner invites people.';
    return kit.problemPage(c, {viewer: s.viewer, title: 'Not allowed', message}, 403);
  }
  const parsed = parseEmail(form.get('email'));
  if (!parsed.ok)
    return teamPage(kit, c, s, {email: clip(form.get('email')), errors: {email: parsed.message}}, 400);
  const outcome = await kit.accounts.invite(s.session, parsed.email, kit.accountBase(c));
  if (outcome !== 'offered') {
    const why =
      outcome === 'member'
        ? `${parsed.email} is already in this org.`
        : `${parsed.email} already has an invitation waiting.`;
    return teamPage(kit, c, s, {email: parsed.email, errors: {email: why}}, 400);
  }
  return teamPage(kit, c, s, {
    notice: `An invitation for ${parsed.email} is in the mailbox. They become an admin once they sign in with that address and accept it.`,
  });
}

/** POST /account/team/invitations/:person/withdraw */
async function withdrawPost(kit: PageKit, c: Context, s: SignedIn): Promise<Response> {
  const person = c.req.param('person') as string;
  if (!isId('user', person) || !(await kit.accounts.withdraw(s.session, person)))
    return kit.notFoundPage(c, s.viewer, 'This org has no such invitation waiting.', '/account/team');
  return teamPage(kit, c, s, {notice: 'The invitation is withdrawn.'});
}

/** POST /account/team/leave: an admin leaves; the owner cannot. */
async function leavePost(kit: PageKit, c: Context, s: SignedIn): Promise<Response> {
  if (!(await kit.accounts.leave(s.session))) {
    const message = 'The owner cannot leave their own org.';
    return kit.problemPage(c, {viewer: s.viewer, title: 'Not allowed', message, back: '/account/team'}, 403);
  }
  return c.redirect('/account', 303);
}

/** POST /account/invitations/:org/accept (or decline) */
async function answerInvitationPost(
  kit: PageKit,
  c: Context,
  s: SignedIn,
  answer: 'accept' | 'decline',
): Promise<Response> {
  const org = c.req.param('org') as string;
  const done =
    isId('org', org) &&
    (answer === 'accept'
      ? await kit.accounts.accept(s.session, org)
      : await kit.accounts.decline(s.session, org));
  if (!done) return kit.notFoundPage(c, s.viewer, 'There is no such invitation waiting for you.');
  return c.redirect('/account', 303);
}
