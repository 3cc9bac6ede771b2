// People who sign in to the account page, one row per email address.
import {newId} from '../../../ids.js';
import type {Queryable} from '../../db/database.js';

export interface Person {
  id: string;
  email: string;
}

export class PersonRepository {
  constructor(private readonly db: Queryable) {}

  /** The person with this (already normalized) address, created on first sight. */
  async findOrCreate(email: string, now: Date): Promise<Person> {
    await this.db.query(
      'INSERT INTO persons (id, email, created_at) VALUES ($1, $2, $3) ON CONFLICT (email) DO NOTHING',
      [newId('user'), email, now],
    );
    const {rows} = await this.db.query<Person>('SELECT id, email FROM persons WHERE email = $1', [email]);
    return rows[0] as Person;
  }

  async markSignedIn(id: string, now: Date): Promise<void> {
    await this.db.query('UPDATE persons SET last_sign_in_at = $2 WHERE id = $1', [id, now]);
  }

  /** The org the person last looked at (a sign-in lands there), if it still exists. */
  async lastOrg(id: string): Promise<string | undefined> {
    const {rows} = await this.db.query<{last_org_id: string | null}>(
      'SELECT last_org_id FROM persons WHERE id = $1',
      [id],
    );
    return rows[0]?.last_org_id ?? undefined;
  }

  async setLastOrg(id: string, orgId: string): Promise<void> {
    await this.db.query('UPDATE persons SET last_org_id = $2 WHERE id = $1', [id, orgId]);
  }
}
