// The emulator's outbox: mails the account page would send (sign-in links, invitations), kept in memory
// and printed to the emulator's log. The database keeps only the hash of a sign-in token, so a link exists
// in full only here and in the log.

export interface Mail {
  to: string;
  subject: string;
  /** The link the mail carries. */
  link: string;
  sentAt: Date;
  /** Sign-in mails: the token's hash, to show whether the link was used or expired. */
  tokenHash?: string;
  expiresAt?: Date;
}

const KEPT = 50;

export class Mailbox {
  private readonly mails: Mail[] = [];

  constructor(private readonly log: (line: string) => void) {}

  send(mail: Mail): void {
    this.mails.unshift(mail);
    if (this.mails.length > KEPT) this.mails.length = KEPT;
    this.log(`mailbox: to ${mail.to}: ${mail.subject}: ${mail.link}`);
  }

  /** Newest first. */
  list(): readonly Mail[] {
    return this.mails;
  }
}
