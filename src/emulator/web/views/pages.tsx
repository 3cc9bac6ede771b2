/** @jsxImportSource hono/jsx */
// Sign-in, mailbox, overview, team and error pages of the account page.
import {MAX_EMAIL_LENGTH} from '../../../definitions.js';
import type {Invitation} from '../db/invitations.js';
import type {Member} from '../db/memberships.js';
import type {Mail} from '../mailbox.js';
import {
  type Assets,
  CsrfField,
  describedBy,
  ErrorSummary,
  FieldHelp,
  type FormErrors,
  Name,
  Notice,
  Page,
  Time,
  type Viewer,
} from './layout.js';

/** The email address field of the sign-in and invite forms, with its rule and error. */
function EmailField(p: {rule: string; autocomplete: 'email' | 'off'; value?: string; error?: string}) {
  return (
    <div class={`field${p.error ? ' has-error' : ''}`}>
      <label for="email">Email address</label>
      <FieldHelp id="email" rule={p.rule} error={p.error} />
      <input
        id="email"
        name="email"
        type="email"
        autocomplete={p.autocomplete}
        spellcheck={false}
        maxlength={MAX_EMAIL_LENGTH}
        value={p.value ?? ''}
        required
        aria-invalid={p.error ? 'true' : undefined}
        aria-describedby={describedBy('email', true, p.error)}
      />
    </div>
  );
}

export function LoginPage(p: {
  assets: Assets;
  csrf: string;
  email?: string;
  errors?: FormErrors;
  note?: string;
}) {
  const errors = p.errors ?? {};
  return (
    <Page title="Sign in" assets={p.assets}>
      <div class="narrow">
        <h1>Sign in</h1>
        <p>
          Manage this org's API keys and webhook endpoints. Enter your email address and we send you a
          one-time sign-in link.
        </p>
        {p.note ? <Notice kind="warning">{p.note}</Notice> : null}
        <ErrorSummary errors={errors} labels={{email: 'Email address'}} />
        <form method="post" action="/account/login" novalidate>
          <CsrfField token={p.csrf} />
          <EmailField
            rule="On this emulator the link arrives in its mailbox and in its log, not by real email."
            autocomplete="email"
            value={p.email}
            error={errors.email}
          />
          <button type="submit">Email me a sign-in link</button>
        </form>
      </div>
    </Page>
  );
}

export function CheckMailPage(p: {assets: Assets; email: string; minutes: number}) {
  return (
    <Page title="Check the mailbox" assets={p.assets}>
      <div class="narrow">
        <h1>Check the mailbox</h1>
        <Notice kind="success">
          A sign-in link for <strong>{p.email}</strong> is on its way. It works once, for {p.minutes} minutes.
        </Notice>
        <p>
          This emulator sends no real email: open the <a href="/account/mailbox">mailbox</a> (the link is also
          printed in the emulator's output).
        </p>
      </div>
    </Page>
  );
}

export function ConfirmSignInPage(p: {assets: Assets; csrf: string; token: string; email: string}) {
  return (
    <Page title="Sign in" assets={p.assets}>
      <div class="narrow">
        <h1>Sign in as {p.email}?</h1>
        <p>This link works once. Signing in ends any other session in this browser.</p>
        <form method="post" action="/account/sign-in">
          <CsrfField token={p.csrf} />
          <input type="hidden" name="token" value={p.token} />
          <button type="submit" data-focus="">
            Sign in
          </button>
        </form>
      </div>
    </Page>
  );
}

const LINK_PROBLEMS = {
  unknown: 'This sign-in link is not valid. Copy the whole link from the mailbox, or ask for a new one.',
  used: 'This sign-in link was already used. Each link works once: ask for a new one.',
  expired: 'This sign-in link has expired. Links work for 15 minutes: ask for a new one.',
} as const;

export function LinkProblemPage(p: {assets: Assets; reason: keyof typeof LINK_PROBLEMS}) {
  return (
    <Page title="Sign-in link refused" assets={p.assets}>
      <div class="narrow">
        <h1>Sign-in link refused</h1>
        <Notice kind="warning">{LINK_PROBLEMS[p.reason]}</Notice>
        <p>
          <a class="button" href="/account">
            Ask for a new link
          </a>
        </p>
      </div>
    </Page>
  );
}

const MAIL_STATE = {used: 'used', expired: 'expired', unused: 'not used yet'} as const;

export function MailboxPage(p: {
  assets: Assets;
  viewer?: Viewer;
  mails: readonly Mail[];
  states: Map<string, 'used' | 'expired' | 'unused'>;
}) {
  return (
    <Page title="Mailbox" assets={p.assets} viewer={p.viewer} section="mailbox">
      <h1>Mailbox</h1>
      <p class="lead">
        Mail the account page would send, kept by this emulator (newest first, the last 50). Anyone who can
        reach this emulator can read it: keep the emulator on a local address.
      </p>
      {p.mails.length === 0 ? (
        <p class="empty">
          No mail yet. <a href="/account">Sign in</a> to get a link.
        </p>
      ) : (
        <ul class="mail-list">
          {p.mails.map((m) => {
            const state = m.tokenHash ? p.states.get(m.tokenHash) : undefined;
            return (
              <li class="card" key={`${m.sentAt.getTime()}-${m.link}`}>
                <p class="mail-head">
                  <strong>{m.subject}</strong>
                  {state ? <span class={`badge badge-${state}`}>{MAIL_STATE[state]}</span> : null}
                </p>
                <p class="muted">
                  To {m.to} · <Time at={m.sentAt} />
                  {m.expiresAt ? (
                    <>
                      {' '}
                      · expires <Time at={m.expiresAt} />
                    </>
                  ) : null}
                </p>
                <p class="mail-link">
                  <a href={m.link}>{m.tokenHash ? `Sign in as ${m.to}` : 'Open the account page'}</a>
                </p>
              </li>
            );
          })}
        </ul>
      )}
    </Page>
  );
}

export function HomePage(p: {
  assets: Assets;
  viewer: Viewer;
  activeKeys: number;
  maxKeys: number;
  endpoints: number;
  maxEndpoints: number;
  apiUrl: string;
  invitations: Invitation[];
}) {
  return (
    <Page title="Overview" assets={p.assets} viewer={p.viewer} section="home">
      <h1>Overview</h1>
      {p.invitations.length > 0 ? (
        <section class="panel" aria-labelledby="invitations-title">
          <h2 id="invitations-title">Invitations</h2>
          <ul class="invitations">
            {p.invitations.map((i) => (
              <li key={i.orgId}>
                <p>
                  <strong>{i.invitedBy ?? 'The owner'}</strong> invites you to be an admin of{' '}
                  <strong>{i.orgName}</strong> <code class="muted">{i.orgId}</code> ·{' '}
                  <Time at={i.createdAt} />
                </p>
                <form method="post" action={`/account/invitations/${i.orgId}/accept`} class="inline">
                  <CsrfField token={p.viewer.csrf} />
                  <button type="submit">Accept</button>
                </form>{' '}
                <form method="post" action={`/account/invitations/${i.orgId}/decline`} class="inline">
                  <CsrfField token={p.viewer.csrf} />
                  <button type="submit" class="secondary">
                    Decline
                  </button>
                </form>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      <div class="cards">
        <a class="card card-link" href="/account/keys">
          <h2>API keys</h2>
          <p class="big">
            {p.activeKeys} <span class="muted">of {p.maxKeys} active</span>
          </p>
          <p class="muted">Create a key for each machine, CI system or agent.</p>
        </a>
        <a class="card card-link" href="/account/webhooks">
          <h2>Webhooks</h2>
          <p class="big">
            {p.endpoints} <span class="muted">of {p.maxEndpoints} endpoints</span>
          </p>
          <p class="muted">Sandbox events, signed and retried, and every delivery attempt.</p>
        </a>
      </div>
      <h2>Use a key</h2>
      <pre class="code" tabindex={0}>
        {`export SVC_API_URL=${p.apiUrl}\nexport SVC_API_KEY=svc_…   # from "Create key"\n${p.viewer.svc} org`}
      </pre>
    </Page>
  );
}

export function TeamPage(p: {
  assets: Assets;
  viewer: Viewer;
  members: Member[];
  invitations: Invitation[];
  canInvite: boolean;
  email?: string;
  errors?: FormErrors;
  notice?: string;
}) {
  return (
    <Page title="Team" assets={p.assets} viewer={p.viewer} section="team">
      <h1>Team</h1>
      <p class="lead">
        Owners and admins manage this org's API keys and webhook endpoints. Only the owner invites.
      </p>
      {p.notice ? <Notice kind="success">{p.notice}</Notice> : null}
      <MembersTable members={p.members} />
      {p.invitations.length > 0 ? (
        <InvitationsTable invitations={p.invitations} canWithdraw={p.canInvite} csrf={p.viewer.csrf} />
      ) : null}
      {p.canInvite ? null : (
        <form method="post" action="/account/team/leave" class="inline">
          <CsrfField token={p.viewer.csrf} />
          <button type="submit" class="secondary">
            Leave this org
          </button>
        </form>
      )}
      {p.canInvite ? (
        <InvitePanel csrf={p.viewer.csrf} email={p.email} errors={p.errors ?? {}} />
      ) : (
        <p class="muted">Only the org's owner can invite people.</p>
      )}
    </Page>
  );
}

/** Who belongs to the org. */
function MembersTable({members}: {members: Member[]}) {
  return (
    <table class="table">
      <caption class="sr-only">People in this org</caption>
      <thead>
        <tr>
          <th scope="col">Email</th>
          <th scope="col">Role</th>
          <th scope="col">Invited by</th>
          <th scope="col">Added</th>
          <th scope="col">Last sign-in</th>
        </tr>
      </thead>
      <tbody>
        {members.map((m) => (
          <tr key={m.personId}>
            <td data-label="Email">
              <Name text={m.email} />
            </td>
            <td data-label="Role">
              <span class="badge">{m.role}</span>
            </td>
            <td data-label="Invited by">{m.invitedBy ?? <span class="muted">—</span>}</td>
            <td data-label="Added">
              <Time at={m.createdAt} />
            </td>
            <td data-label="Last sign-in">
              <Time at={m.lastSignInAt} empty="not yet" />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Invitations not yet taken; the owner may withdraw each. */
function InvitationsTable(p: {invitations: Invitation[]; canWithdraw: boolean; csrf: string}) {
  return (
    <>
      <h2>Invitations waiting</h2>
      <table class="table">
        <caption class="sr-only">Invitations not yet accepted</caption>
        <thead>
          <tr>
            <th scope="col">Email</th>
            <th scope="col">Invited by</th>
            <th scope="col">Sent</th>
            {p.canWithdraw ? (
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            ) : null}
          </tr>
        </thead>
        <tbody>
          {p.invitations.map((i) => (
            <tr key={i.personId}>
              <td data-label="Email">
                <Name text={i.email} />
              </td>
              <td data-label="Invited by">{i.invitedBy ?? <span class="muted">—</span>}</td>
              <td data-label="Sent">
                <Time at={i.createdAt} />
              </td>
              {p.canWithdraw ? (
                <td>
                  <form
                    method="post"
                    action={`/account/team/invitations/${i.personId}/withdraw`}
                    class="inline"
                  >
                    <CsrfField token={p.csrf} />
                    <button
                      type="submit"
                      class="secondary"
                      aria-label={`Withdraw the invitation of ${i.email}`}
                    >
                      Withdraw
                    </button>
                  </form>
                </td>
              ) : null}
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

/** The owner's form to invite an admin by address. */
function InvitePanel(p: {csrf: string; email?: string; errors: FormErrors}) {
  return (
    <section class="panel" aria-labelledby="invite-title">
      <h2 id="invite-title">Invite an admin</h2>
      <ErrorSummary errors={p.errors} labels={{email: 'Email address'}} />
      <form method="post" action="/account/team" novalidate>
        <CsrfField token={p.csrf} />
        <EmailField
          rule="They sign in with this address and accept the invitation; then they manage keys and endpoints."
          autocomplete="off"
          value={p.email}
          error={p.errors.email}
        />
        <button type="submit">Invite admin</button>
      </form>
    </section>
  );
}

export function ProblemPage(p: {
  assets: Assets;
  viewer?: Viewer;
  title: string;
  message: string;
  back?: string;
}) {
  return (
    <Page title={p.title} assets={p.assets} viewer={p.viewer}>
      <div class="narrow">
        <h1>{p.title}</h1>
        <Notice kind="warning">{p.message}</Notice>
        <p>
          <a href={p.back ?? '/account'}>Back to the account page</a>
        </p>
      </div>
    </Page>
  );
}
