// Invitations to an org: offers that make the invitee an admin only once they accept.
import type {Database} from '../../db/database.js';

export interface Invitation {
  orgId: string;
  orgName: string;
  personId: string;
  email: string;
  invitedBy: string | null;
  createdAt: Date;
}

interface InvitationRow {
  org_id: string;
  org_name: string;
  person_id: string;
  email: string;
  invited_by: string | null;
  created_at: Date | string;
}

const SELECT = `SELECT i.org_id, o.name AS org_name, i.person_id, p.email, b.email AS invited_by, i.created_at
                  FROM invitations i JOIN orgs o ON o.id = i.org_id JOIN persons p ON p.id = i.person_id
                  LEFT JOIN persons b ON b.id = i.invited_by`;

const toInvitation = (r: InvitationRow): Invitation => ({
  orgId: r.org_id,
  orgName: r.org_name,
  personId: r.person_id,
  email: r.email,
  invitedBy: r.invited_by,
  createdAt: new Date(r.created_at),
});

export class InvitationRepository {
  constructor(private readonly db: Database) {}

  /** Offers the org to the person; 'member' when they already belong to it, 'pending' when already offered. */
  async offer(
    orgId: string,
    personId: string,
    invitedBy: string,
    now: Date,
  ): Promise<'offered' | 'member' | 'pending'> {
    return this.db.transaction(async (tx) => {
      const member = await tx.query('SELECT 1 FROM memberships WHERE org_id = $1 AND person_id = $2', [
        orgId,
        personId,
      ]);
      if (member.rows.length > 0) return 'member';
      const r = await tx.query(
        `INSERT INTO invitations (org_id, person_id, invited_by, created_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT DO NOTHING`,
        [orgId, personId, invitedBy, now],
      );
      return r.rowCount > 0 ? 'offered' : 'pending';
    });
  }

  /** Turns the offer into an admin membership; false when there is no such offer (withdrawn, or never made). */
  async accept(orgId: string, personId: string, now: Date): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const taken = await tx.query<{invited_by: string | null}>(
        'DELETE FROM invitations WHERE org_id = $1 AND person_id = $2 RETURNING invited_by',
        [orgId, personId],
      );
      const offer = taken.rows[0];
      if (!offer) return false;
      await tx.query(
        `INSERT INTO memberships (org_id, person_id, role, invited_by, created_at)
         VALUES ($1, $2, 'admin', $3, $4) ON CONFLICT DO NOTHING`,
        [orgId, personId, offer.invited_by, now],
      );
      return true;
    });
  }

  /** Drops the offer (declined by the invitee, withdrawn by the owner); false when there was none. */
  async remove(orgId: string, personId: string): Promise<boolean> {
    const r = await this.db.query('DELETE FROM invitations WHERE org_id = $1 AND person_id = $2', [
      orgId,
      personId,
    ]);
    return r.rowCount > 0;
  }

  /** The offers waiting for a person, oldest first. */
  async forPerson(personId: string): Promise<Invitation[]> {
    const {rows} = await this.db.query<InvitationRow>(
      `${SELECT} WHERE i.person_id = $1 ORDER BY i.created_at`,
      [personId],
    );
    return rows.map(toInvitation);
  }

  /** The offers an org has made that are still pending, oldest first. */
  async forOrg(orgId: string): Promise<Invitation[]> {
    const {rows} = await this.db.query<InvitationRow>(`${SELECT} WHERE i.org_id = $1 ORDER BY i.created_at`, [
      orgId,
    ]);
    return rows.map(toInvitation);
  }
}
