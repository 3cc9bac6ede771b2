// Account page sessions: the cookie holds a random id, the table only its SHA-256.
import type {OrgRole} from '../../../definitions.js';
import type {Queryable} from '../../db/database.js';

export interface SessionView {
  idHash: string;
  personId: string;
  email: string;
  orgId: string;
  orgName: string;
  role: OrgRole;
  /** How many orgs the person belongs to (a switcher shows when more than one). */
  orgCount: number;
  expiresAt: Date;
}

export class SessionRepository {
  constructor(private readonly db: Queryable) {}

  async create(input: {idHash: string; personId: string; orgId: string; now: Date; expiresAt: Date}) {
    await this.db.query(
      'INSERT INTO account_sessions (id_hash, person_id, org_id, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)',
      [input.idHash, input.personId, input.orgId, input.now, input.expiresAt],
    );
  }

  /** The live session with this id hash, only while the person still belongs to its org. */
  async find(idHash: string, now: Date): Promise<SessionView | undefined> {
    const {rows} = await this.db.query<{
      person_id: string;
      email: string;
      org_id: string;
      org_name: string;
      role: OrgRole;
      org_count: number | string;
      expires_at: Date | string;
    }>(
      `SELECT s.person_id, p.email, s.org_id, o.name AS org_name, m.role, s.expires_at,
              (SELECT count(*) FROM memberships x WHERE x.person_id = s.person_id) AS org_count
         FROM account_sessions s
         JOIN persons p ON p.id = s.person_id
         JOIN memberships m ON m.org_id = s.org_id AND m.person_id = s.person_id
         JOIN orgs o ON o.id = s.org_id
        WHERE s.id_hash = $1 AND s.expires_at > $2`,
      [idHash, now],
    );
    const r = rows[0];
    return (
      r && {
        idHash,
        personId: r.person_id,
        email: r.email,
        orgId: r.org_id,
        orgName: r.org_name,
        role: r.role,
        orgCount: Number(r.org_count),
        expiresAt: new Date(r.expires_at),
      }
    );
  }

  async switchOrg(idHash: string, orgId: string): Promise<void> {
    await this.db.query('UPDATE account_sessions SET org_id = $2 WHERE id_hash = $1', [idHash, orgId]);
  }

  async delete(idHash: string): Promise<void> {
    await this.db.query('DELETE FROM account_sessions WHERE id_hash = $1', [idHash]);
  }

  async purgeExpired(now: Date): Promise<void> {
    await this.db.query('DELETE FROM account_sessions WHERE expires_at <= $1', [now]);
  }
}
