// Who belongs to which org, and as what (owner or admin).
import type {OrgRole} from '../../../definitions.js';
import type {Queryable} from '../../db/database.js';

export interface Member {
  personId: string;
  email: string;
  role: OrgRole;
  invitedBy: string | null;
  createdAt: Date;
  lastSignInAt: Date | null;
}

export interface PersonOrg {
  orgId: string;
  orgName: string;
  role: OrgRole;
}

export class MembershipRepository {
  constructor(private readonly db: Queryable) {}

  /** Makes the person the org's owner when it has none yet; true when they now own it. */
  async claimOwnership(orgId: string, personId: string, now: Date): Promise<boolean> {
    await this.db.query(
      `INSERT INTO memberships (org_id, person_id, role, invited_by, created_at)
       VALUES ($1, $2, 'owner', NULL, $3) ON CONFLICT DO NOTHING`,
      [orgId, personId, now],
    );
    const {rows} = await this.db.query<{role: string}>(
      'SELECT role FROM memberships WHERE org_id = $1 AND person_id = $2',
      [orgId, personId],
    );
    return rows[0]?.role === 'owner';
  }

  /** An admin leaves the org; false when they are not an admin of it (an owner cannot leave their org). */
  async leave(orgId: string, personId: string): Promise<boolean> {
    const r = await this.db.query(
      "DELETE FROM memberships WHERE org_id = $1 AND person_id = $2 AND role = 'admin'",
      [orgId, personId],
    );
    return r.rowCount > 0;
  }

  /** The orgs a person belongs to, in the order they joined them. */
  async orgsOf(personId: string): Promise<PersonOrg[]> {
    const {rows} = await this.db.query<{org_id: string; name: string; role: OrgRole}>(
      `SELECT m.org_id, o.name, m.role FROM memberships m JOIN orgs o ON o.id = m.org_id
        WHERE m.person_id = $1 ORDER BY m.seq`,
      [personId],
    );
    return rows.map((r) => ({orgId: r.org_id, orgName: r.name, role: r.role}));
  }

  async members(orgId: string): Promise<Member[]> {
    const {rows} = await this.db.query<{
      person_id: string;
      email: string;
      role: OrgRole;
      invited_by: string | null;
      created_at: Date | string;
      last_sign_in_at: Date | string | null;
    }>(
      `SELECT m.person_id, p.email, m.role, i.email AS invited_by, m.created_at, p.last_sign_in_at
         FROM memberships m JOIN persons p ON p.id = m.person_id LEFT JOIN persons i ON i.id = m.invited_by
        WHERE m.org_id = $1 ORDER BY (m.role = 'owner') DESC, m.seq`,
      [orgId],
    );
    return rows.map((r) => ({
      personId: r.person_id,
      email: r.email,
      role: r.role,
      invitedBy: r.invited_by,
      createdAt: new Date(r.created_at),
      lastSignInAt: r.last_sign_in_at == null ? null : new Date(r.last_sign_in_at),
    }));
  }
}
