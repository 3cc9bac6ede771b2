// Sign-in by email for the account page: one-time links through the mailbox, sessions, orgs and invitations.
import {
  ACCOUNT_SESSION_TTL_MS,
  CONTROL_CHARACTER,
  INVISIBLE_CHARACTER,
  MAX_EMAIL_LENGTH,
  SIGN_IN_LINK_TTL_MS,
} from '../../definitions.js';
import type {EmulatorContext} from '../context.js';
import {InvitationRepository} from './db/invitations.js';
import {MembershipRepository} from './db/memberships.js';
import {PersonRepository} from './db/persons.js';
import {type SessionView, SessionRepository} from './db/sessions.js';
import {SignInLinkRepository, type SpendResult} from './db/sign-in-links.js';
import {Mailbox} from './mailbox.js';
import {hashToken, newToken} from './security.js';

// Deliberately plain: one @, no spaces, a dot in the domain. Mail systems decide the rest.
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The address, normalized, or the reason it cannot be one. */
export function parseEmail(value: unknown): {ok: true; email: string} | {ok: false; message: string} {
  if (typeof value !== 'string' || value.trim() === '')
    return {ok: false, message: 'Enter an email address.'};
  const email = value.trim().toLowerCase();
  if (email.length > MAX_EMAIL_LENGTH)
    return {ok: false, message: `An email address is at most ${MAX_EMAIL_LENGTH} characters.`};
  if (CONTROL_CHARACTER.test(email) || INVISIBLE_CHARACTER.test(email) || !EMAIL.test(email))
    return {ok: false, message: 'Enter an address like name@example.com.'};
  return {ok: true, email};
}

/**
 * Every page view looks its session up. A process that owns its database (PGlite) reuses a looked-up session
 * until it changes a session or membership itself; on a shared PostgreSQL another process may sign a person out,
 * so each view reads the session again (one indexed query), and a sign-out holds at once everywhere.
 */
const SESSION_CACHE_ENTRIES = 1000;

export class Accounts {
  // idHash -> a session as last read; `generation` moves on every write this class makes, dropping them all.
  // Entries also carry the state's epoch: a reset or an import ends every session it removed, cached or not.
  private readonly sessionCache = new Map<string, {view: SessionView; generation: number; epoch: number}>();
  private generation = 0;

  readonly mailbox: Mailbox;
  readonly persons: PersonRepository;
  readonly memberships: MembershipRepository;
  readonly invitations: InvitationRepository;
  readonly links: SignInLinkRepository;
  readonly sessions: SessionRepository;

  constructor(private readonly ctx: EmulatorContext) {
    this.mailbox = new Mailbox(ctx.log);
    this.persons = new PersonRepository(ctx.db);
    this.memberships = new MembershipRepository(ctx.db);
    this.invitations = new InvitationRepository(ctx.db);
    this.links = new SignInLinkRepository(ctx.db);
    this.sessions = new SessionRepository(ctx.db);
  }

  /** Mails a one-time sign-in link to the address. */
  /** accountBase: the page's absolute address, e.g. http://127.0.0.1:4010/account. */
  async requestSignIn(email: string, accountBase: string): Promise<void> {
    const now = this.ctx.clock.now();
    const token = newToken();
    const tokenHash = hashToken(token);
    const expiresAt = new Date(now.getTime() + SIGN_IN_LINK_TTL_MS);
    await this.links.create({tokenHash, email, now, expiresAt});
    this.mailbox.send({
      to: email,
      subject: 'Your sign-in link',
      link: `${accountBase}/sign-in?token=${token}`,
      sentAt: now,
      tokenHash,
      expiresAt,
    });
    // Housekeeping rides on sign-in requests: spent links and ended sessions need no timer of their own.
    await this.links.purgeExpired(new Date(now.getTime() - 86_400_000));
    await this.sessions.purgeExpired(now);
    this.changed();
  }

  peekLink(token: string): Promise<SpendResult> {
    return this.links.peek(hashToken(token), this.ctx.clock.now());
  }

  /**
   * Spends the link and opens a new session (a new id every time: the session rotates at sign-in). The first
   * person ever to sign in owns the emulator's default org; anyone else gets an org of their own. An invitation
   * changes nothing here: it waits on the overview until its invitee accepts it. The session opens in the org the
   * person last looked at, else their own.
   */
  async signIn(
    token: string,
    previousSessionHash: string | undefined,
  ): Promise<{ok: true; sessionId: string} | {ok: false; reason: 'unknown' | 'used' | 'expired'}> {
    const now = this.ctx.clock.now();
    const spent = await this.links.spend(hashToken(token), now);
    if (!spent.ok) return spent;
    const person = await this.persons.findOrCreate(spent.email, now);
    await this.persons.markSignedIn(person.id, now);
    const orgId = await this.landingOrg(person, now);
    if (previousSessionHash) {
      this.changed();
      await this.sessions.delete(previousSessionHash);
      this.changed();
    }
    const sessionId = newToken();
    await this.sessions.create({
      idHash: hashToken(sessionId),
      personId: person.id,
      orgId,
      now,
      expiresAt: new Date(now.getTime() + ACCOUNT_SESSION_TTL_MS),
    });
    return {ok: true, sessionId};
  }

  /** Where a person lands: the org they last looked at while they still belong to it, else their own. */
  private async landingOrg(person: {id: string; email: string}, now: Date): Promise<string> {
    const orgs = await this.memberships.orgsOf(person.id);
    const last = await this.persons.lastOrg(person.id);
    const chosen = orgs.find((o) => o.orgId === last) ??
      orgs.find((o) => o.role === 'owner') ??
      orgs[0] ?? {orgId: await this.ownOrg(person, now)};
    await this.persons.setLastOrg(person.id, chosen.orgId);
    return chosen.orgId;
  }

  /** The default org for the first person ever, else a new org of their own. */
  private async ownOrg(person: {id: string; email: string}, now: Date): Promise<string> {
    if (await this.memberships.claimOwnership(this.ctx.current.orgId, person.id, now))
      return this.ctx.current.orgId;
    const org = await this.ctx.repos.orgs.create(`${person.email}'s org`, now);
    await this.memberships.claimOwnership(org.id, person.id, now);
    return org.id;
  }

  async session(sessionId: string): Promise<SessionView | undefined> {
    const idHash = hashToken(sessionId);
    const now = this.ctx.clock.now();
    const cacheable = this.ctx.db.kind === 'pglite';
    const hit = cacheable ? this.sessionCache.get(idHash) : undefined;
    const epoch = this.ctx.current.epoch;
    if (hit && hit.generation === this.generation && hit.epoch === epoch) {
      return hit.view.expiresAt.getTime() > now.getTime() ? hit.view : undefined;
    }
    const generation = this.generation;
    const view = await this.sessions.find(idHash, now);
    if (view && cacheable && generation === this.generation && epoch === this.ctx.current.epoch) {
      if (this.sessionCache.size >= SESSION_CACHE_ENTRIES) this.sessionCache.clear();
      this.sessionCache.set(idHash, {view, generation, epoch});
    }
    return view;
  }

  /** Sessions and memberships change: no cached session may be served any more. */
  private changed(): void {
    this.generation++;
    this.sessionCache.clear();
  }

  async signOut(session: SessionView): Promise<void> {
    this.changed();
    await this.sessions.delete(session.idHash);
    this.changed();
  }

  /**
   * The owner offers the org to an address; the offer arrives in the mailbox and waits on the invitee's overview
   * until they accept or decline it, or the owner withdraws it. Nobody is added to an org without saying yes.
   */
  async invite(
    session: SessionView,
    email: string,
    accountBase: string,
  ): Promise<'offered' | 'member' | 'pending'> {
    const now = this.ctx.clock.now();
    const person = await this.persons.findOrCreate(email, now);
    const outcome = await this.invitations.offer(session.orgId, person.id, session.personId, now);
    if (outcome === 'offered') {
      this.mailbox.send({
        to: email,
        subject: `${session.email} invites you to be an admin of ${session.orgName}: sign in and accept it on the overview`,
        link: accountBase,
        sentAt: now,
      });
    }
    return outcome;
  }

  /** The invitee takes the offer: they become an admin and look at that org. False when it is no longer there. */
  async accept(session: SessionView, orgId: string): Promise<boolean> {
    this.changed();
    const accepted = await this.invitations.accept(orgId, session.personId, this.ctx.clock.now());
    if (accepted) await this.switchOrg(session, orgId);
    this.changed();
    return accepted;
  }

  decline(session: SessionView, orgId: string): Promise<boolean> {
    return this.invitations.remove(orgId, session.personId);
  }

  /** The owner takes back an offer not yet accepted. */
  withdraw(session: SessionView, personId: string): Promise<boolean> {
    if (session.role !== 'owner') return Promise.resolve(false);
    return this.invitations.remove(session.orgId, personId);
  }

  /**
   * An admin leaves the org the session looks at, and the session moves to another of theirs (their own, made
   * when they have none left). False for the owner, who cannot leave their org.
   */
  async leave(session: SessionView): Promise<boolean> {
    const now = this.ctx.clock.now();
    this.changed();
    const left = await this.memberships.leave(session.orgId, session.personId);
    if (left) {
      const person = {id: session.personId, email: session.email};
      const orgs = await this.memberships.orgsOf(person.id);
      const next =
        (orgs.find((o) => o.role === 'owner') ?? orgs[0])?.orgId ?? (await this.ownOrg(person, now));
      await this.sessions.switchOrg(session.idHash, next);
      await this.persons.setLastOrg(person.id, next);
    }
    this.changed();
    return left;
  }

  /** Moves the session to another org of the same person; false when they do not belong to it. */
  async switchOrg(session: SessionView, orgId: string): Promise<boolean> {
    const orgs = await this.memberships.orgsOf(session.personId);
    if (!orgs.some((o) => o.orgId === orgId)) return false;
    this.changed();
    await this.sessions.switchOrg(session.idHash, orgId);
    await this.persons.setLastOrg(session.personId, orgId);
    this.changed();
    return true;
  }
}
