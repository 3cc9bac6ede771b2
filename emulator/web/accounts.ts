// Sign-in by email for the account page: one-time links through the mailbox, sessions, orgs and invitations.
import {
  ACCOUNT_SESSION_TTL_MS,
  CONTROL_CHARACTER,
  INVISIBLE_CHARACTER,
  MAX_EMAIL_LENGTH,
  SIGN_IN_LINK_TTL_MS,
} from '../../src/definitions.js';
import type {EmulatorContext} from '../context.js';
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
  private readonly sessionCache = new Map<string, {view: SessionView; generation: number}>();
  private generation = 0;

  readonly mailbox: Mailbox;
  readonly persons: PersonRepository;
  readonly memberships: MembershipRepository;
  readonly links: SignInLinkRepository;
  readonly sessions: SessionRepository;

  constructor(private readonly ctx: EmulatorContext) {
    this.mailbox = new Mailbox(ctx.log);
    this.persons = new PersonRepository(ctx.db);
    this.memberships = new MembershipRepository(ctx.db);
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
   * person ever to sign in owns the emulator's default org; someone invited lands in the org that invited them;
   * anyone else gets an org of their own.
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
    let orgs = await this.memberships.orgsOf(person.id);
    if (orgs.length === 0) {
      if (!(await this.memberships.claimOwnership(this.ctx.orgId, person.id, now))) {
        const org = await this.ctx.repos.orgs.create(`${spent.email}'s org`, now);
        await this.memberships.claimOwnership(org.id, person.id, now);
      }
      orgs = await this.memberships.orgsOf(person.id);
    }
    if (previousSessionHash) {
      this.changed();
      await this.sessions.delete(previousSessionHash);
      this.changed();
    }
    const sessionId = newToken();
    await this.sessions.create({
      idHash: hashToken(sessionId),
      personId: person.id,
      // The newest membership: an invited person lands where they were just invited.
      orgId: (orgs[orgs.length - 1] ?? orgs[0])?.orgId as string,
      now,
      expiresAt: new Date(now.getTime() + ACCOUNT_SESSION_TTL_MS),
    });
    return {ok: true, sessionId};
  }

  async session(sessionId: string): Promise<SessionView | undefined> {
    const idHash = hashToken(sessionId);
    const now = this.ctx.clock.now();
    const cacheable = this.ctx.db.kind === 'pglite';
    const hit = cacheable ? this.sessionCache.get(idHash) : undefined;
    if (hit && hit.generation === this.generation) {
      return hit.view.expiresAt.getTime() > now.getTime() ? hit.view : undefined;
    }
    const generation = this.generation;
    const view = await this.sessions.find(idHash, now);
    if (view && cacheable && generation === this.generation) {
      if (this.sessionCache.size >= SESSION_CACHE_ENTRIES) this.sessionCache.clear();
      this.sessionCache.set(idHash, {view, generation});
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

  /** Owners add admins by address; the invitation arrives in the mailbox. False when already a member. */
  async invite(session: SessionView, email: string, accountBase: string): Promise<boolean> {
    const now = this.ctx.clock.now();
    const person = await this.persons.findOrCreate(email, now);
    const added = await this.memberships.addAdmin(session.orgId, person.id, session.personId, now);
    this.changed();
    if (added) {
      this.mailbox.send({
        to: email,
        subject: `${session.email} made you an admin of ${session.orgName}`,
        link: accountBase,
        sentAt: now,
      });
    }
    return added;
  }

  /** Moves the session to another org of the same person; false when they do not belong to it. */
  async switchOrg(session: SessionView, orgId: string): Promise<boolean> {
    const orgs = await this.memberships.orgsOf(session.personId);
    if (!orgs.some((o) => o.orgId === orgId)) return false;
    this.changed();
    await this.sessions.switchOrg(session.idHash, orgId);
    this.changed();
    return true;
  }
}
